package dev.delayq.metrics;

/**
 * The histogram buckets of lateness (start minus due) and handler duration, in milliseconds:
 * the upper bounds, Prometheus style; values above the last bound fall in bucket
 * {@code BOUNDS_MS.length} (+Inf).
 */
public final class LatencyBuckets {
  public static final long[] BOUNDS_MS = {1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 60000};

  private LatencyBuckets() {}

  public static int bucketOf(long ms) {
    for (int i = 0; i < BOUNDS_MS.length; i++) {
      if (ms <= BOUNDS_MS[i]) {
        return i;
      }
    }
    return BOUNDS_MS.length;
  }

  /** The bucket's label as Prometheus writes it: the upper bound in seconds, or +Inf. */
  public static String le(int bucket) {
    return bucket < BOUNDS_MS.length ? Double.toString(BOUNDS_MS[bucket] / 1000.0) : "+Inf";
  }
}
