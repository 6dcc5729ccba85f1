package dev.delayq.worker;

import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.RedisBroker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends, from one thread, what the consumers report as they go: the deliveries they finished
 * (acknowledged: the job is forgotten) and the one each has just started (its running mark, for
 * the heartbeat path of recovery). Whatever gathered while the last call was out goes in the
 * next, every consumer together in one script call, so a job costs no round trip of its own and a
 * finished job waits for its acknowledgement about one round trip. Retried through Redis outages
 * until sent or abandoned at shutdown; a fenced acknowledgement (the job was taken back) is logged.
 */
final class AckSender implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AckSender.class);
  private static final int MOST_PER_CALL = 4_096;
  private static final long IDLE_PARK_NANOS = 100_000_000L;

  private record Item(Channel channel, Delivery started, Delivery finished) {}

  /** One consumer's way to the sender: what it reports, and what of that is still unsent. */
  final class Channel {
    private final String consumer;
    private final AtomicLong unsent = new AtomicLong();
    /** The consumer's thread while it waits in {@link #awaitAtMost}: a send wakes it. */
    private volatile Thread waiting;

    private Channel(String consumer) {
      this.consumer = consumer;
    }

    /** Reports that the consumer started {@code started} and finished {@code finished} (either may be null). */
    void report(Delivery started, Delivery finished) {
      AckSender.this.unsent.incrementAndGet();
      unsent.incrementAndGet();
      queue.add(new Item(this, started, finished));
      if (idle) {
        LockSupport.unpark(thread);
      }
    }

    /** Waits until everything this consumer reported was sent (or abandoned); false at the deadline. */
    boolean flush(long deadlineNanos) throws InterruptedException {
      return await(unsent, deadlineNanos);
    }

    /**
     * Waits until at most {@code most} of this consumer's reports are unsent, woken by each send;
     * false when {@code giveUp} holds first (looked at every 10 ms).
     */
    boolean awaitAtMost(long most, BooleanSupplier giveUp) {
      while (unsent.get() > most) {
        if (giveUp.getAsBoolean()) {
          return false;
        }
        waiting = Thread.currentThread();
        if (unsent.get() > most) { // read after waiting is set: a send meanwhile unparks us
          LockSupport.parkNanos(this, 10_000_000L);
        }
        waiting = null;
      }
      return true;
    }

    private void sentOne() {
      unsent.decrementAndGet();
      Thread t = waiting;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
  }

  private final RedisBroker broker;
  private final RedisOutage outage;
  private final BooleanSupplier abandon;
  private final ConcurrentLinkedQueue<Item> queue = new ConcurrentLinkedQueue<>();
  private final AtomicLong unsent = new AtomicLong();
  private final List<Item> retrying = new ArrayList<>();
  private volatile boolean closed;
  /** True while the sender waits for reports: only then does a report need to wake it. */
  private volatile boolean idle;
  private volatile Thread thread;

  AckSender(RedisBroker broker, RedisOutage outage, BooleanSupplier abandon) {
    this.broker = broker;
    this.outage = outage;
    this.abandon = abandon;
  }

  /** Starts sending on its own thread; {@code onCannotGoOn} is told should it not go on. */
  void start(java.util.function.Consumer<Throwable> onCannotGoOn) {
    thread = RunUntilShutdown.of("ack-sender", this::send).until(() -> closed).riding(outage)
        .onCannotGoOn(onCannotGoOn, java.time.Duration.ofSeconds(30)).build().start();
  }

  /** The channel of {@code consumer}; each consumer takes its own once. */
  Channel channel(String consumer) {
    return new Channel(consumer);
  }

  /** Waits until every report was sent (or abandoned); false at the deadline. */
  boolean flush(long deadlineNanos) throws InterruptedException {
    return await(unsent, deadlineNanos);
  }

  private static boolean await(AtomicLong count, long deadlineNanos) throws InterruptedException {
    while (count.get() > 0) {
      if (System.nanoTime() - deadlineNanos >= 0) {
        return false;
      }
      Thread.sleep(1);
    }
    return true;
  }

  /** One call with everything reported, or a short wait for a report. */
  long send() {
    List<Item> round = new ArrayList<>(retrying);
    retrying.clear();
    for (Item i; round.size() < MOST_PER_CALL && (i = queue.poll()) != null; ) {
      round.add(i);
    }
    if (round.isEmpty()) {
      idle = true;
      if (queue.isEmpty()) { // checked after idle is set: a report added meanwhile wakes us
        LockSupport.parkNanos(this, IDLE_PARK_NANOS);
      }
      idle = false;
      return 0;
    }
    Map<String, List<Delivery>> finished = new LinkedHashMap<>();
    Map<String, Delivery> started = new LinkedHashMap<>();
    for (Item i : round) {
      List<Delivery> f = finished.computeIfAbsent(i.channel().consumer, c -> new ArrayList<>(2));
      if (i.finished() != null) {
        f.add(i.finished());
      }
      if (i.started() != null) {
        started.put(i.channel().consumer, i.started()); // the latest start is the one running
      }
    }
    List<RedisBroker.Report> reports = new ArrayList<>(finished.size());
    finished.forEach((c, f) -> reports.add(new RedisBroker.Report(c, started.get(c), f)));
    try {
      List<boolean[]> acked = broker.ackAll(reports);
      for (int r = 0; r < reports.size(); r++) {
        for (int i = 0; i < acked.get(r).length; i++) {
          if (!acked.get(r)[i]) {
            Finisher.fenced(reports.get(r).consumerId(), reports.get(r).finished().get(i), "ack");
          }
        }
      }
      sent(round);
    } catch (RuntimeException e) {
      if (abandon.getAsBoolean()) {
        log.error("giving up {} acknowledgement(s): Redis unreachable at shutdown; those jobs stay in "
            + "flight and are taken back, uncharged", round.size());
        sent(round);
      } else {
        retrying.addAll(round); // sent again, in order, once the loop's backoff is over
      }
      throw e;
    }
    return 0;
  }

  private void sent(List<Item> round) {
    unsent.addAndGet(-round.size());
    round.forEach(i -> i.channel().sentOne());
  }

  @Override
  public void close() {
    closed = true;
    Thread t = thread;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }
}
