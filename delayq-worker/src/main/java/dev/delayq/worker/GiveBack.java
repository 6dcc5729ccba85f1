package dev.delayq.worker;

import dev.delayq.process.ShardHealth;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.Released;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Gives back, uncounted, the jobs a consumer claimed and will not run: when a call failed and left
 * it unsure of its in-flight list, when it is told to be quiet, after a change of Redis master
 * (the new master may not have the claim: see {@link FailoverResync}), and, on a queue of several
 * shards, what it holds in a shard whose call failed. Its acknowledgements on their way always go
 * first, or their jobs would be given back and run twice.
 *
 * <p>A call that fails in one shard (its cluster node lost, or its replicas not confirming) holds
 * back that shard alone ({@link ShardHealth}): the consumer drops a batch of that shard, owes the
 * shard a give-back of its in-flight list there (after its acknowledgements there are sent), and
 * meanwhile claims from the others (see {@link ClaimScheduler#mayClaimFrom}), with no backoff of
 * its own; after a change of master it owes every shard that give-back, each on its own.
 *
 * <p>State of one consumer's thread, read and written by that thread only.
 */
final class GiveBack {
  /** Its lines log as the consumer's, as they did when this was part of it: a log setting for it still applies. */
  private static final Logger log = LoggerFactory.getLogger(Consumer.class);
  /** Longer than the longest Redis outage backoff, so the sender's retry after an outage lands first. */
  private static final long FLUSH_BEFORE_GIVING_BACK_NANOS = 6_000_000_000L;

  private final String id;
  private final RedisBroker broker;
  private final AckSender.Channel acks;
  private final PendingAck pending;
  private final ClaimedBatch batch;
  private final ClaimRotation rotation;
  private final FailoverResync resync;
  /** The health of the queue's shards, shared by the worker's consumers and its ack sender. */
  private final ShardHealth health;
  private final BooleanSupplier quiet;
  /**
   * Per shard (on a queue of several): a call there failed, or the master changed, so this
   * consumer's in-flight list there may hold jobs it does not have; it gives them back (after its
   * acknowledgements there are sent) before it claims there again, and meanwhile claims elsewhere.
   */
  private final boolean[] owed;
  /** The epoch of the master this consumer last gave back its stale deliveries to. */
  private long seenMasterEpoch;

  GiveBack(String id, RedisBroker broker, AckSender.Channel acks, PendingAck pending, ClaimedBatch batch,
      ClaimRotation rotation, FailoverResync resync, ShardHealth health, BooleanSupplier quiet,
      long seenMasterEpoch) {
    this.id = id;
    this.broker = broker;
    this.acks = acks;
    this.pending = pending;
    this.batch = batch;
    this.rotation = rotation;
    this.resync = resync;
    this.health = health;
    this.quiet = quiet;
    this.owed = new boolean[broker.shards()];
    this.seenMasterEpoch = seenMasterEpoch;
  }

  /** True when this consumer owes {@code shard} a give-back: it claims elsewhere until then. */
  boolean owes(int shard) {
    return owed[shard];
  }

  /**
   * A call to {@code shard} failed: that shard is held back (its health), and what this consumer
   * claimed there is given back once it answers again; the consumer goes on with the others.
   */
  void shardFailed(int shard, RuntimeException e) {
    health.failed(shard, e);
    owed[shard] = true;
    if (batch.shard == shard && batch.holdsUnstarted()) {
      batch.drop();
    }
    rotation.claimed(shard, true); // the next claim starts at the shard after it
  }

  /**
   * Gives back, shard by shard, what this consumer's in-flight lists hold in the shards it owes
   * (see {@link #owed}), each once its acknowledgements there are sent and the shard answers; a
   * shard that fails stays owed, and the others go on.
   */
  void giveBackOwed() {
    for (int s = 0; s < owed.length; s++) {
      if (!owed[s]) {
        continue;
      }
      if (health.failing(s) && (acks.unsent(s) > 0 || !health.mayCall(s))) {
        continue; // its acknowledgements are held back, or its retry is not due yet
      }
      try {
        if (!acks.flush(s, System.nanoTime() + FLUSH_BEFORE_GIVING_BACK_NANOS)) {
          continue;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      Delivery ack = pending.in(s);
      Released r;
      try {
        r = broker.acks().releaseClaimed(id, s, ack);
      } catch (JedisException e) {
        pending.callFailed(e);
        health.failed(s, e);
        continue;
      }
      health.worked(s);
      owed[s] = false;
      if (ack != null) {
        pending.answered(r.ack());
      }
      if (r.released() > 0) {
        log.info("{}: gave back {} claimed job(s) of shard {} it had not started, uncounted", id, r.released(), s);
      }
    }
  }

  /**
   * Between two batches, holding no job: when the Redis master changed since this consumer last
   * looked, gives back what its list still holds on the new master (see {@link FailoverResync}).
   * When its acknowledgements could not be sent yet, it looks again before the next claim.
   */
  void resyncAfterFailover() {
    long epoch = resync.epoch();
    if (epoch == seenMasterEpoch) {
      return;
    }
    if (owed.length > 1) {
      // shard by shard, each after its own acknowledgements: a shard whose new master does not
      // answer yet holds back only its own give-back
      Arrays.fill(owed, true);
      seenMasterEpoch = epoch;
      return;
    }
    Optional<Released> r;
    try {
      r = resync.giveBack(id, acks, pending.get());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (r.isPresent()) {
      pending.answered(r.get().ack());
      seenMasterEpoch = epoch;
    }
  }

  /**
   * Acknowledges the finished job and gives back every other claimed one, none of them started.
   * The acknowledgements on their way go first, or their jobs would be given back and run twice:
   * while they cannot be sent (Redis, or a cluster's failed master, not answering yet) nothing is
   * given back and the consumer stays unsure, to try again after its backoff. Only at shutdown
   * does it give back anyway (the drain must end; its worker's exit takes back what remains).
   */
  void giveBackAll() {
    if (owed.length > 1 && !quiet.getAsBoolean()) {
      Arrays.fill(owed, true);
      batch.drop();
      giveBackOwed();
      return;
    }
    boolean sent = false;
    try {
      sent = acks.flush(System.nanoTime() + FLUSH_BEFORE_GIVING_BACK_NANOS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!sent && !quiet.getAsBoolean()) {
      throw new JedisConnectionException(id + ": its acknowledgements are not sent yet; its claimed "
          + "jobs are given back once they are");
    }
    Released r = broker.acks().releaseClaimed(id, pending.get());
    pending.answered(r.ack());
    batch.drop();
    if (r.released() > 0) {
      log.info("{}: gave back {} claimed job(s) it had not started, uncounted", id, r.released());
    }
  }
}
