package dev.delayq.worker;

import dev.delayq.redis.UnconfirmedReplies;
import dev.delayq.redis.Ack;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisErrors;

/**
 * The acknowledgement a consumer holds between the job it finished and its next call: it rides on
 * that call (a claim, a start, a give-back) so that a job costs no round trip of its own, or goes
 * with the {@link AckSender} when no call to its shard comes soon. Beside it, what {@link Refusals}
 * needs to tell a refusal of its retry from a job taken back: whether a call that held it ran on
 * the master unconfirmed, or lost its reply, and under which lease.
 *
 * <p>State of one consumer's thread, read and written by that thread only.
 */
final class PendingAck {
  private final String consumer;
  private final RedisBroker broker;
  private final AckSender.Channel acks;
  private final Refusals refusals;

  /** A finished job whose acknowledgement goes with the next call or report. */
  private Delivery delivery;
  /** The lease under which the job of {@link #delivery} was last known the consumer's, or NOT_LANDED. */
  private int ownedUnder = Refusals.NOT_LANDED;
  /**
   * The pending acknowledgement that a call ran on the master but its replicas did not confirm,
   * and what {@link Refusals#landed} said then: its retry may find it done (see {@link #landingOf}).
   */
  private Delivery landedAck;
  private int landedAckAt = Refusals.NOT_LANDED;

  PendingAck(String consumer, RedisBroker broker, AckSender.Channel acks, Refusals refusals) {
    this.consumer = consumer;
    this.broker = broker;
    this.acks = acks;
    this.refusals = refusals;
  }

  /** The acknowledgement the next call carries, or null. */
  Delivery get() {
    return delivery;
  }

  /** True while the consumer holds an acknowledgement. */
  boolean held() {
    return delivery != null;
  }

  /** The pending acknowledgement when it is of {@code shard}, else null. */
  Delivery in(int shard) {
    return delivery != null && broker.keys().shardIndexOf(delivery.id()) == shard ? delivery : null;
  }

  /** The consumer finished a job: {@code finished} is acknowledged with its next call, as last owned under {@code lease}. */
  void hold(Delivery finished, int lease) {
    delivery = finished;
    ownedUnder = lease;
  }

  /**
   * Sends the acknowledgement that would ride on the consumer's next call with the sender now:
   * its thread moves on, and that call may be a while.
   */
  void handOff() {
    if (delivery != null) {
      acks.report(null, delivery, landingOf(delivery), ownedUnder);
      delivery = null;
    }
  }

  /** As {@link #handOff}, unless the acknowledgement in hand is of {@code shard}, where the next call goes. */
  void handOffUnlessIn(int shard) {
    if (delivery != null && in(shard) == null) {
      handOff();
    }
  }

  /** Reports {@code started} to the sender, with the acknowledgement in hand beside it. */
  void reportWith(Delivery started) {
    acks.report(started, delivery, landingOf(delivery), ownedUnder);
    delivery = null;
  }

  /** A call carried the acknowledgement in hand and Redis answered {@code ack}: it is no longer held. */
  void answered(Ack ack) {
    if (ack.refused()) {
      refusals.ackRefused(consumer, delivery, ack, landingOf(delivery));
    }
    delivery = null;
  }

  /**
   * A call that held the pending acknowledgement failed with {@code e}: when it ran and acknowledged
   * it on the master, unconfirmed by its replicas, or its reply was lost (it may have, if the job
   * was still this consumer's: held against the lease it was last known so under), the retry (the
   * next call that holds it, or the sender) may find the job done by it.
   */
  void callFailed(RuntimeException e) {
    if (delivery != null && UnconfirmedReplies.ack(e) == Ack.ACKED) {
      landedAck = delivery;
      landedAckAt = refusals.landed();
    } else if (delivery != null && delivery != landedAck && RedisErrors.isReplyLost(e)) {
      landedAck = delivery;
      landedAckAt = ownedUnder;
    }
  }

  /** What {@link Refusals#landed} said when a call acknowledged {@code d} unconfirmed, if one did. */
  private int landingOf(Delivery d) {
    return d != null && d == landedAck ? landedAckAt : Refusals.NOT_LANDED;
  }
}
