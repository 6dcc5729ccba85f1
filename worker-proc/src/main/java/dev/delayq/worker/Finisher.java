package dev.delayq.worker;

import dev.delayq.process.RedisOutage;
import dev.delayq.redis.RedisBroker;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Applies an {@link Outcome} with one script call, retrying through Redis outages until it
 * lands: the result of a finished job is never dropped. A call refused because the job was
 * taken back from this consumer (fenced) is logged; the job runs again elsewhere.
 */
final class Finisher {
  private static final Logger log = LoggerFactory.getLogger(Finisher.class);

  private final RedisBroker broker;
  private final RedisOutage outage;
  private final BooleanSupplier abandon;

  /** {@code abandon} says when to stop retrying (the worker is being killed anyway). */
  Finisher(RedisBroker broker, RedisOutage outage, BooleanSupplier abandon) {
    this.broker = broker;
    this.outage = outage;
    this.abandon = abandon;
  }

  /** Returns true when the outcome was applied, false when fenced or abandoned. */
  boolean finish(String consumer, String id, Outcome outcome) throws InterruptedException {
    while (true) {
      try {
        boolean applied = apply(consumer, id, outcome);
        outage.succeeded();
        if (!applied) {
          log.warn("{}: job {} was taken back from this consumer before its {} could land "
              + "(heartbeat expired or worker presumed dead); it runs again elsewhere",
              consumer, id, name(outcome));
        }
        return applied;
      } catch (JedisException e) {
        long wait = outage.failed(e);
        if (abandon.getAsBoolean()) {
          log.error("{}: giving up the {} of job {}: Redis still unreachable at shutdown; "
              + "the job stays in flight and is recovered", consumer, name(outcome), id);
          return false;
        }
        Thread.sleep(wait);
      }
    }
  }

  /** Acknowledges finished jobs together (one script call), retrying through outages. */
  void ackAll(String consumer, List<String> ids) throws InterruptedException {
    while (true) {
      try {
        boolean[] acked = broker.ackAll(consumer, ids);
        outage.succeeded();
        for (int i = 0; i < acked.length; i++) {
          if (!acked[i]) {
            log.warn("{}: job {} was taken back from this consumer before its ack could land "
                + "(heartbeat expired or worker presumed dead); it runs again elsewhere",
                consumer, ids.get(i));
          }
        }
        return;
      } catch (JedisException e) {
        long wait = outage.failed(e);
        if (abandon.getAsBoolean()) {
          log.error("{}: giving up the ack of {} job(s): Redis still unreachable at shutdown; "
              + "they stay in flight and are recovered", consumer, ids.size());
          return;
        }
        Thread.sleep(wait);
      }
    }
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
}
