package dev.delayq.worker;

/**
 * What this worker's heartbeat proves: nobody takes back its consumers' jobs before their
 * heartbeat expires in Redis, and the last heartbeat Redis confirmed was sent at a known moment.
 * So until that moment plus the TTL, less a margin, a consumer owns every delivery it claimed and
 * may start the next one without asking Redis; past it (a stall, a long pause, a Redis outage),
 * it asks first. The margin covers a Redis clock that runs a little ahead, and the instant between
 * the check and the handler's start. Times are System.nanoTime.
 */
final class Lease {
  private final long ttlNanos;
  private final long marginNanos;
  private volatile long renewedAtNanos;
  private volatile boolean everRenewed;

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

  /** Redis confirmed a heartbeat sent at {@code sentAtNanos}. */
  void renewed(long sentAtNanos) {
    if (!everRenewed || sentAtNanos - renewedAtNanos > 0) {
      renewedAtNanos = sentAtNanos;
      everRenewed = true;
    }
  }

  /** True while no take-back can have happened yet. */
  boolean holds(long nowNanos) {
    return everRenewed && nowNanos - renewedAtNanos < ttlNanos - marginNanos;
  }
}
