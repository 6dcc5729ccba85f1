package dev.delayq.worker;

import dev.delayq.redis.UnconfirmedReplies;
import dev.delayq.process.LogText;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RedisTrouble;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.HandlerWait;
import dev.delayq.redis.Moved;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisErrors;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Applies a retry, reschedule or dead-letter, or leaves a job to a worker that has its handler,
 * with one script call, retrying through Redis outages until it lands: the result of a finished job is never dropped. (Acknowledgements need
 * no call of their own: each rides on the consumer's next start, claim or release.) A call
 * refused because the delivery was taken back from its consumer (fenced) is logged once and
 * changes nothing; the job runs again elsewhere. A retry refused because its own earlier attempt
 * had applied the outcome (its replicas had not confirmed it, or its reply was lost on the way) is
 * no such thing ({@link Refusals}); when that attempt is known to have sent the job to dead
 * instead (its replicas' shortfall came with its answer), that is logged as for any other.
 */
final class Finisher {
  private static final Logger log = LoggerFactory.getLogger(Finisher.class);

  private final RedisBroker broker;
  private final RedisOutage outage;
  private final BooleanSupplier abandon;
  private final Refusals refusals;
  private final HandlerWait handlerWait;

  /** {@code abandon} says when to stop retrying (the worker is being killed anyway). */
  Finisher(RedisBroker broker, RedisOutage outage, BooleanSupplier abandon) {
    this(broker, outage, abandon, Refusals.withoutLease());
  }

  /** As {@link #Finisher(RedisBroker, RedisOutage, BooleanSupplier)}, telling refusals by {@code refusals}. */
  Finisher(RedisBroker broker, RedisOutage outage, BooleanSupplier abandon, Refusals refusals) {
    this.broker = broker;
    this.outage = outage;
    this.abandon = abandon;
    this.refusals = refusals;
    this.handlerWait = broker.handlerWait();
  }

  /**
   * Applies the outcome now; true when applied, false when fenced or abandoned. As
   * {@link #finish(String, Delivery, Outcome, int)} for a delivery not known to be owned under
   * any lease (a try whose reply is lost then counts as maybe fenced).
   */
  boolean finish(String consumer, Delivery delivery, Outcome outcome) throws InterruptedException {
    return finish(consumer, delivery, outcome, Refusals.NOT_LANDED);
  }

  /**
   * Applies the outcome now; true when applied, false when fenced or abandoned. {@code ownedUnder}
   * is the lease under which the delivery was last known to be the consumer's (its batch's claim,
   * or its start confirmed by Redis: what {@link Refusals#landed} said before that call), or
   * {@link Refusals#NOT_LANDED}. A try whose reply is lost is held against it, not against the
   * lease the try went out under: a lease that lapsed while the job ran and was renewed before
   * the try may have let the job be taken back, and then the refused retry is no echo.
   */
  boolean finish(String consumer, Delivery delivery, Outcome outcome, int ownedUnder)
      throws InterruptedException {
    int landing = Refusals.NOT_LANDED;
    Moved landedMove = null; // what the try that applied it unconfirmed did, when known
    while (true) {
      try {
        if (apply(consumer, delivery, outcome)) {
          outage.succeeded();
          return true;
        }
        outage.succeeded();
        if (!refusals.outcomeRefused(consumer, delivery, name(outcome), landing)) {
          return false;
        }
        if (landedMove == Moved.DEAD) {
          wentToDead(consumer, delivery, outcome); // the earlier try's doing, not this refusal's
        }
        return true;
      } catch (JedisException e) {
        if (UnconfirmedReplies.outcome(e)) {
          landing = refusals.landed(); // it ran and applied: a refused retry may be meeting it
          landedMove = UnconfirmedReplies.move(e);
        } else if (landing == Refusals.NOT_LANDED && RedisErrors.isReplyLost(e)) {
          landing = ownedUnder; // it may have run and applied, if the job was still the consumer's
        }
        long wait = outage.failed(e);
        if (abandon.getAsBoolean()) {
          // said by what the last try met; when it applied, unconfirmed, the job is not in flight
          log.error("{}: giving up the {} of job {}: {} at shutdown; {}", consumer, name(outcome),
              LogText.escape(delivery.id()), RedisTrouble.of(e).said(e, true),
              UnconfirmedReplies.outcome(e)
                  ? "it is applied on the master, unconfirmed: should a failover lose it, the job is recovered"
                  : "the job stays in flight and is recovered");
          return false;
        }
        Thread.sleep(wait);
      }
    }
  }

  private boolean apply(String consumer, Delivery delivery, Outcome outcome) {
    if (outcome instanceof Outcome.Retry r) {
      return moved(consumer, delivery, outcome, broker.outcomes().retry(consumer, delivery, r.delayMs(), r.error()));
    }
    if (outcome instanceof Outcome.Reschedule r) {
      return moved(consumer, delivery, outcome, broker.outcomes().reschedule(consumer, delivery, r.delayMs()));
    }
    if (outcome instanceof Outcome.Wait w) {
      return moved(consumer, delivery, outcome, broker.outcomes().waitRateLimited(consumer, delivery, w.delayMs()));
    }
    if (outcome instanceof Outcome.DeadLetter d) {
      return broker.outcomes().deadLetter(consumer, delivery, d.error());
    }
    if (outcome instanceof Outcome.Complete c) {
      return broker.outcomes().complete(consumer, delivery, c.cancelled(), c.resultJson());
    }
    if (outcome instanceof Outcome.NoHandler n) {
      return handlerWait.leave(consumer, delivery, n.type());
    }
    throw new IllegalStateException("no script applies the outcome " + outcome
        + " on its own (acknowledgements ride on the next call)");
  }

  private static boolean moved(String consumer, Delivery delivery, Outcome outcome, Moved m) {
    if (m == Moved.DEAD) {
      wentToDead(consumer, delivery, outcome);
    }
    return m != Moved.FENCED;
  }

  private static void wentToDead(String consumer, Delivery delivery, Outcome outcome) {
    log.error("{}: job {} went to dead instead of its {}: its record cannot be read or written "
        + "back (see its lastError)", consumer, LogText.escape(delivery.id()), name(outcome));
  }

  static String name(Outcome outcome) {
    return outcome.getClass().getSimpleName().toLowerCase();
  }
}
