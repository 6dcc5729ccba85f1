package dev.delayq.worker;

import dev.delayq.process.LogText;
import dev.delayq.process.RedisOutage;
import dev.delayq.redis.RedisBroker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Applies outcomes with one script call each, retrying through Redis outages until they land:
 * the result of a finished job is never dropped. Acknowledgements go through one sender thread
 * that takes whatever finished meanwhile, on every consumer, in one pipeline, so a consumer
 * moves on to its next job at once and a finished job waits for its ack one round trip at most,
 * whatever the jobs after it do. A call refused because the job was taken back from its
 * consumer (fenced) is logged; the job runs again elsewhere.
 */
final class Finisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Finisher.class);
  private static final int MOST_ACKS_PER_ROUND = 10_000;

  private record PendingAck(String consumer, String id) {}

  private final RedisBroker broker;
  private final RedisOutage outage;
  private final BooleanSupplier abandon;
  private final BlockingQueue<PendingAck> acks = new LinkedBlockingQueue<>();
  private final AtomicLong unsent = new AtomicLong();
  private final Thread sender;

  /** {@code abandon} says when to stop retrying (the worker is being killed anyway). */
  Finisher(RedisBroker broker, RedisOutage outage, BooleanSupplier abandon) {
    this.broker = broker;
    this.outage = outage;
    this.abandon = abandon;
    this.sender = new Thread(this::sendAcks, "ack-sender");
    sender.setDaemon(true);
    sender.start();
  }

  /** Queues the acknowledgement of a finished job; the sender thread sends it. */
  void ackLater(String consumer, String id) {
    unsent.incrementAndGet();
    acks.add(new PendingAck(consumer, id));
  }

  /** Waits until every queued acknowledgement was sent (or abandoned); false at the deadline. */
  boolean flush(long deadlineNanos) throws InterruptedException {
    while (unsent.get() > 0) {
      if (System.nanoTime() - deadlineNanos >= 0) {
        return false;
      }
      Thread.sleep(2);
    }
    return true;
  }

  private void sendAcks() {
    List<PendingAck> round = new ArrayList<>();
    while (true) {
      try {
        round.add(acks.take());
      } catch (InterruptedException e) {
        return;
      }
      acks.drainTo(round, MOST_ACKS_PER_ROUND - 1);
      Map<String, List<String>> byConsumer = new LinkedHashMap<>();
      for (PendingAck a : round) {
        byConsumer.computeIfAbsent(a.consumer(), c -> new ArrayList<>()).add(a.id());
      }
      try {
        send(byConsumer);
      } catch (InterruptedException e) {
        return;
      } finally {
        unsent.addAndGet(-round.size());
        round.clear();
      }
    }
  }

  private void send(Map<String, List<String>> byConsumer) throws InterruptedException {
    while (true) {
      try {
        Map<String, boolean[]> acked = broker.ackAll(byConsumer);
        outage.succeeded();
        acked.forEach((consumer, results) -> {
          for (int i = 0; i < results.length; i++) {
            if (!results[i]) {
              fenced(consumer, byConsumer.get(consumer).get(i), "ack");
            }
          }
        });
        return;
      } catch (JedisException e) {
        long wait = outage.failed(e);
        if (abandon.getAsBoolean()) {
          log.error("giving up {} ack(s): Redis still unreachable at shutdown; those jobs stay in "
              + "flight and are recovered", byConsumer.values().stream().mapToInt(List::size).sum());
          return;
        }
        Thread.sleep(wait);
      }
    }
  }

  /** Applies a retry, reschedule or dead-letter now; true when applied, false when fenced or abandoned. */
  boolean finish(String consumer, String id, Outcome outcome) throws InterruptedException {
    while (true) {
      try {
        boolean applied = apply(consumer, id, outcome);
        outage.succeeded();
        if (!applied) {
          fenced(consumer, id, name(outcome));
        }
        return applied;
      } catch (JedisException e) {
        long wait = outage.failed(e);
        if (abandon.getAsBoolean()) {
          log.error("{}: giving up the {} of job {}: Redis still unreachable at shutdown; "
              + "the job stays in flight and is recovered", consumer, name(outcome), LogText.escape(id));
          return false;
        }
        Thread.sleep(wait);
      }
    }
  }

  private static void fenced(String consumer, String id, String what) {
    log.warn("{}: job {} was taken back from this consumer before its {} could land "
        + "(heartbeat expired or worker presumed dead); it runs again elsewhere", consumer, LogText.escape(id), what);
  }

  private boolean apply(String consumer, String id, Outcome outcome) {
    if (outcome instanceof Outcome.Ack) {
      return broker.ack(consumer, id);
    }
    if (outcome instanceof Outcome.Retry r) {
      return moved(consumer, id, broker.retry(consumer, id, r.delay().toMillis(), r.error()));
    }
    if (outcome instanceof Outcome.Reschedule r) {
      return moved(consumer, id, broker.reschedule(consumer, id, r.delay().toMillis()));
    }
    if (outcome instanceof Outcome.DeadLetter d) {
      return broker.deadLetter(consumer, id, d.error());
    }
    throw new IllegalStateException("unknown outcome " + outcome);
  }

  private boolean moved(String consumer, String id, RedisBroker.Moved m) {
    if (m == RedisBroker.Moved.MALFORMED) {
      return broker.deadLetter(consumer, id, "malformed record: cannot be moved back to delayed");
    }
    return m == RedisBroker.Moved.MOVED;
  }

  private static String name(Outcome outcome) {
    return outcome.getClass().getSimpleName().toLowerCase();
  }

  @Override
  public void close() {
    sender.interrupt();
  }
}
