package dev.delayq.worker;

import dev.delayq.redis.RedisBroker;
import java.util.List;

/**
 * The jobs a consumer's last claim brought, how far it got through them, and what held when they
 * were claimed (the lease, the Redis master, the shard), which its start of each asks about. The
 * claims fill it; the give-backs drop it.
 *
 * <p>State of one consumer's thread, read and written by that thread only. (What another
 * consumer may hand off from behind the job in hand is the {@link HandOffBook}'s, under its lock.)
 */
final class ClaimedBatch {
  /** The claimed jobs; the first {@link #next} of them were started. */
  List<RedisBroker.Claimed> jobs = List.of();
  int next;
  /** The first job of a batch comes marked running by the claim itself. */
  boolean nextIsMarked;
  /** The lease the batch was claimed under, or -1 when it did not hold then. */
  int epoch = -1;
  /** The epoch of the Redis master the batch was claimed on. */
  long masterEpoch;
  /** The shard of the batch in hand. */
  int shard;

  ClaimedBatch(long masterEpoch) {
    this.masterEpoch = masterEpoch;
  }

  /** A claim brought {@code claimed}, claimed under lease {@code epoch} (if {@code leaseHeld}) on master {@code masterEpoch}. */
  void took(List<RedisBroker.Claimed> claimed, int epoch, boolean leaseHeld, long masterEpoch) {
    jobs = claimed;
    next = 0;
    nextIsMarked = !claimed.isEmpty();
    this.epoch = leaseHeld ? epoch : -1;
    this.masterEpoch = masterEpoch;
  }

  /** The jobs not started are no longer this consumer's to run (given back, or handed off). */
  void drop() {
    jobs = List.of();
    next = 0;
  }

  /** True while jobs of the batch wait to be started. */
  boolean holdsUnstarted() {
    return next < jobs.size();
  }
}
