package dev.delayq;

import dev.delayq.redis.Enqueued;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.RedisBroker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Coalesces single enqueues made at the same time by many threads into one script call: each
 * caller waits for its own reply as before, but fifty concurrent callers cost one round trip,
 * not fifty. A caller alone (nothing queued, no call on the wire) sends its job itself, on its
 * own thread: a hand-off to a sender and back cost it two thread wake-ups, about half of a
 * single call's time on a busy machine. Two senders keep a second batch filling while the first
 * is on the wire.
 */
final class EnqueueBatcher implements AutoCloseable {
  private static final int MAX_BATCH = 100;
  private static final int SENDERS = 2;

  private record Pending(NewJob job, CompletableFuture<Enqueued> reply) {}

  private final RedisBroker broker;
  private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final List<Thread> senders = new ArrayList<>();
  /** Script calls on the wire, the senders' and lone callers' own. */
  private final AtomicInteger sending = new AtomicInteger();
  private volatile boolean closed;

  EnqueueBatcher(RedisBroker broker) {
    this.broker = broker;
    for (int i = 0; i < SENDERS; i++) {
      Thread t = new Thread(this::send, "delayq-enqueue-" + i);
      t.setDaemon(true);
      t.start();
      senders.add(t);
    }
  }

  Enqueued enqueue(NewJob job) {
    if (closed) {
      throw new IllegalStateException("this DelayQueue is closed");
    }
    if (queue.isEmpty() && sending.compareAndSet(0, 1)) {
      try {
        return broker.enqueue(job);
      } finally {
        sending.decrementAndGet();
      }
    }
    Pending p = new Pending(job, new CompletableFuture<>());
    queue.add(p);
    try {
      return p.reply().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while enqueueing " + job.id(), e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  private void send() {
    List<Pending> batch = new ArrayList<>(MAX_BATCH);
    List<NewJob> jobs = new ArrayList<>(MAX_BATCH);
    while (!closed) {
      try {
        batch.add(queue.take());
      } catch (InterruptedException e) {
        return;
      }
      queue.drainTo(batch, MAX_BATCH - 1);
      for (Pending p : batch) {
        jobs.add(p.job());
      }
      sending.incrementAndGet();
      try {
        List<Enqueued> replies = broker.enqueueAll(jobs);
        for (int i = 0; i < batch.size(); i++) {
          batch.get(i).reply().complete(replies.get(i));
        }
      } catch (RuntimeException e) {
        for (Pending p : batch) {
          p.reply().completeExceptionally(e);
        }
      } finally {
        sending.decrementAndGet();
      }
      batch.clear();
      jobs.clear();
    }
  }

  @Override
  public void close() {
    closed = true;
    senders.forEach(Thread::interrupt);
    Pending p;
    while ((p = queue.poll()) != null) {
      p.reply().completeExceptionally(new IllegalStateException("this DelayQueue is closed"));
    }
  }
}
