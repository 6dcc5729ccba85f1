package dev.delayq.scheduler;

import dev.delayq.redis.RedisBroker;

/**
 * A Forwarder moves due ids from delayed to ready so that consumers see them, one bounded
 * batch per {@link #tick()}; it never touches in-flight lists. The caller loops at once while a
 * tick fills its batch, else sleeps until {@link Pass#nextDueNanos()}.
 */
final class Forwarder {
  private final RedisBroker broker;
  private final int batchSize;

  Forwarder(RedisBroker broker, int batchSize) {
    this.broker = broker;
    this.batchSize = batchSize;
  }

  /**
   * One pass: how many ids moved, whether more are due at once, and when the next one falls
   * due on this JVM's monotonic clock (Long.MAX_VALUE when nothing is delayed). The wait is
   * measured from Redis's own clock in the same reply, so this host's wall clock never matters.
   */
  record Pass(int moved, boolean moreDue, long nextDueNanos, long redisNowMs) {}

  Pass tick() {
    return tick(0);
  }

  int shards() {
    return broker.shards();
  }

  /** One pass over one shard. */
  Pass tick(int shard) {
    return tick(shard, 0);
  }

  /**
   * One hot-standby pass over a shard whose lease another scheduler holds: it moves only the ids
   * due at least {@code graceMs} ago, which the holder should have moved, and its next pass is due
   * when the next id is that overdue. Moving nothing is the normal outcome.
   */
  Pass tick(int shard, long graceMs) {
    RedisBroker.Forwarded f = broker.moveDueToReady(shard, batchSize, graceMs);
    long received = System.nanoTime();
    long next = Long.MAX_VALUE;
    if (f.nextDueAt().isPresent()) {
      long waitMs = Math.max(0, f.nextDueAt().getAsLong() + graceMs - f.redisNow());
      next = received + waitMs * 1_000_000;
    }
    return new Pass(f.moved(), f.moved() == batchSize, next, f.redisNow());
  }
}
