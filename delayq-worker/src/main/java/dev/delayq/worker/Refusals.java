package dev.delayq.worker;

import dev.delayq.process.LogText;
import dev.delayq.redis.Ack;
import dev.delayq.redis.Delivery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says what a refused acknowledgement or outcome means, and logs it so. With
 * {@code redis.replicaAcks} a call whose WAIT fell short is sent again although it ran on the
 * master, and a call whose reply was lost (the connection broke after it was sent) is sent again
 * although it may have run; when it had applied, the retry finds the delivery gone from the
 * consumer's list and is refused, yet nobody took the job back: this very call ended it. Such a
 * refusal is an echo of the call's earlier attempt, logged at DEBUG; any other WARNs once, as a job
 * taken back that runs again elsewhere.
 *
 * <p>A refusal is an echo only when the worker knows all of: an attempt of this call applied (its
 * answer came back with the replicas' shortfall) or may have (its reply was lost), as
 * {@link #landed} noted; its {@link Lease} held from that attempt to the refusal without a break,
 * so no recovery can have taken the consumer's jobs back in between (and had a failover lost the
 * attempt, the delivery would still be in the list, where the retry applies it); and, for an
 * acknowledgement, Redis answered that the job's record is gone ({@link Ack#ENDED}: a
 * job taken back lives on, with its record). A job taken back, run and acknowledged elsewhere also
 * has no record, but its taking back broke the lease: it WARNs. (For an attempt whose reply was
 * lost, nothing says the delivery was still the consumer's when it went out, so the lease counted
 * is the one it was last known owned under, its batch's claim or its confirmed start, which the
 * callers pass: a lapse while the job ran, renewed before the attempt, breaks it.) When an attempt
 * applied, or may have, but the lease did not hold from it to the refusal, an acknowledgement
 * answered ENDED is either: it WARNs as such, not as a job taken back, which may be false (a
 * failover with replicaAcks, whose new master has no replica yet to confirm the heartbeats, does
 * that).
 */
final class Refusals {
  private static final Logger log = LoggerFactory.getLogger(Refusals.class);
  /** What {@link #landed} says when no attempt applied, or the lease did not hold when one did. */
  static final int NOT_LANDED = -1;

  private final Lease lease;

  Refusals(Lease lease) {
    this.lease = lease;
  }

  /** Refusals of a worker without a lease (a test's): none is ever taken for an echo. */
  static Refusals withoutLease() {
    return new Refusals(new Lease(2, 1));
  }

  /**
   * An attempt applied on the master but its replicas did not confirm it, or a call that confirms
   * a delivery is the consumer's goes out now: what a refusal of the retry is held against (the
   * lease it applied or went out under, or {@link #NOT_LANDED} when the lease does not hold).
   */
  int landed() {
    int epoch = lease.epoch(); // read first: a lease renewed after a lapse meanwhile is a new epoch
    return lease.holds(System.nanoTime()) ? epoch : NOT_LANDED;
  }

  /**
   * What {@link #appliedOnMaster} says of an attempt that applied while the lease did not hold:
   * the job was this consumer's then (else it would have been refused), but nothing proves that a
   * later refusal is its echo.
   */
  static final int APPLIED_UNLEASED = -2;

  /**
   * As {@link #landed}, for an attempt whose answer came back with the replicas' shortfall and
   * says it applied on the master; {@link #APPLIED_UNLEASED} when the lease does not hold.
   */
  int appliedOnMaster() {
    int epoch = landed();
    return epoch == NOT_LANDED ? APPLIED_UNLEASED : epoch;
  }

  /** True when a refusal now is the echo of the attempt that {@link #landed} as {@code landing}. */
  private boolean echoes(int landing) {
    return landing != NOT_LANDED && lease.holdsSince(landing, System.nanoTime());
  }

  /**
   * A refused acknowledgement ({@code answer} FENCED or ENDED) of {@code delivery}, whose last
   * attempt that acknowledged it unconfirmed {@link #landed} as {@code landing}: logged as what it is.
   */
  void ackRefused(String consumer, Delivery delivery, Ack answer, int landing) {
    if (answer == Ack.ENDED && echoes(landing)) {
      log.debug("{}: job {} (delivery {}) was acknowledged by an earlier try that was not confirmed "
          + "(its replicas fell short, or its reply was lost); its retry found it done", consumer,
          LogText.escape(delivery.id()), delivery.token());
      return;
    }
    if (answer == Ack.ENDED && landing != NOT_LANDED) {
      // an earlier try may have ended it, but the lease did not hold from it on: a recovery may
      // have taken the job back, and it may have run and ended elsewhere. Nothing here tells which
      log.warn("{}: the ack of job {} (delivery {}) found the job ended, and this worker cannot tell "
          + "by whom: an earlier try of it was not confirmed (its replicas fell short, or its reply "
          + "was lost) and this worker's lease did not hold from that try on, so either that try "
          + "acknowledged it or the job was taken back and ran again elsewhere", consumer,
          LogText.escape(delivery.id()), delivery.token());
      return;
    }
    takenBack(consumer, delivery, "ack");
  }

  /**
   * A refused retry, reschedule or dead-letter ({@code what}) of {@code delivery}, whose attempt
   * that applied it unconfirmed {@link #landed} as {@code landing}; true when the refusal is that
   * attempt's echo (the outcome is applied), false when the job was taken back (logged).
   */
  boolean outcomeRefused(String consumer, Delivery delivery, String what, int landing) {
    if (echoes(landing)) {
      log.debug("{}: the {} of job {} (delivery {}) was applied by an earlier try that was not "
          + "confirmed (its replicas fell short, or its reply was lost); its retry found it done",
          consumer, what, LogText.escape(delivery.id()), delivery.token());
      return true;
    }
    takenBack(consumer, delivery, what);
    return false;
  }

  private static void takenBack(String consumer, Delivery delivery, String what) {
    log.warn("{}: the {} of job {} (delivery {}) was refused: the job was taken back from this "
        + "consumer (heartbeat expired or worker presumed dead) and runs again elsewhere", consumer,
        what, LogText.escape(delivery.id()), delivery.token());
  }
}
