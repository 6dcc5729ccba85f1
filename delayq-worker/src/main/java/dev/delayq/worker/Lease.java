package dev.delayq.worker;

/**
 * What this worker's heartbeat proves: nobody takes back its consumers' jobs before their
 * heartbeat expires in Redis, and the last heartbeat Redis confirmed was sent at a known moment.
 * So until that moment plus the TTL, less a margin, a consumer owns every delivery it claimed
 * while the lease held, and may start the next one without asking Redis; past it (a stall, a long
 * pause, a Redis outage), it asks first. A lease renewed after it had lapsed is a new one (its
 * {@link #epoch()} changes): deliveries claimed under the old one may have been taken back in the
 * gap, so they are asked about too. The margin covers a Redis clock that runs a little ahead, and
 * the instant between the check and the handler's start. Times are System.nanoTime.
 */
final class Lease {
  private final long ttlNanos;
  private final long marginNanos;
  private volatile long renewedAtNanos;
  private volatile boolean everRenewed;
  private volatile int epoch;

  Lease(long ttlNanos, long marginNanos) {
    if (marginNanos <= 0 || marginNanos >= ttlNanos) {
      throw new IllegalArgumentException("lease margin " + marginNanos + " ns must be within the TTL " + ttlNanos);
    }
    this.ttlNanos = ttlNanos;
    this.marginNanos = marginNanos;
  }

  /** The margin for a heartbeat of {@code ttl} sent every {@code interval}: a fifth of the TTL, at least one interval. */
  static Lease forHeartbeat(long ttlNanos, long intervalNanos) {
    return new Lease(ttlNanos, Math.min(ttlNanos / 2, Math.max(intervalNanos, ttlNanos / 5)));
  }

  /** Redis confirmed a heartbeat sent at {@code sentAtNanos} (called by the heartbeat thread only). */
  void renewed(long sentAtNanos) {
    if (everRenewed && sentAtNanos - renewedAtNanos <= 0) {
      return; // a late answer to an older heartbeat
    }
    if (!holds(sentAtNanos)) {
      epoch++; // it had lapsed: a new lease, which covers nothing claimed before
    }
    renewedAtNanos = sentAtNanos;
    everRenewed = true;
  }

  /** True while no take-back can have happened yet. */
  boolean holds(long nowNanos) {
    return everRenewed && nowNanos - renewedAtNanos < ttlNanos - marginNanos;
  }

  /** True while the lease holds and has held without a break since it was {@code epoch}. */
  boolean holdsSince(int epoch, long nowNanos) {
    return epoch == this.epoch && holds(nowNanos);
  }

  /** Which lease this is: it changes each time the lease is renewed after it had lapsed. */
  int epoch() {
    return epoch;
  }
}
