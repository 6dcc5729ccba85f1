package dev.delayq.metrics;

/**
 * Counts of one latency histogram, per {@link LatencyBuckets} bucket (not cumulative; the last
 * is +Inf), and the sum of the values in milliseconds.
 */
public record Distribution(long[] buckets, long sumMs) {
  public static final int SIZE = LatencyBuckets.BOUNDS_MS.length + 1;

  public static Distribution empty() {
    return new Distribution(new long[SIZE], 0);
  }

  public long count() {
    long n = 0;
    for (long b : buckets) {
      n += b;
    }
    return n;
  }

  /**
   * The q-quantile in milliseconds, estimated as Prometheus's histogram_quantile does: linear
   * within the bucket that holds it; the last finite bound when it falls in +Inf. NaN when empty.
   */
  public double quantileMs(double q) {
    long total = count();
    if (total == 0) {
      return Double.NaN;
    }
    double rank = q * total;
    long below = 0;
    for (int i = 0; i < buckets.length; i++) {
      if (below + buckets[i] >= rank && buckets[i] > 0) {
        if (i == LatencyBuckets.BOUNDS_MS.length) {
          return LatencyBuckets.BOUNDS_MS[i - 1];
        }
        double lower = i == 0 ? 0 : LatencyBuckets.BOUNDS_MS[i - 1];
        double upper = LatencyBuckets.BOUNDS_MS[i];
        return lower + (upper - lower) * (rank - below) / buckets[i];
      }
      below += buckets[i];
    }
    return LatencyBuckets.BOUNDS_MS[LatencyBuckets.BOUNDS_MS.length - 1];
  }

  /**
   * The upper bound in ms of the bucket holding the q-quantile ("p99 <= 25 ms"): the last
   * finite bound for +Inf; null when empty.
   */
  public Long upperBoundMs(double q) {
    long total = count();
    if (total == 0) {
      return null;
    }
    long rank = (long) Math.ceil(q * total);
    long seen = 0;
    for (int i = 0; i < buckets.length; i++) {
      seen += buckets[i];
      if (seen >= rank) {
        return LatencyBuckets.BOUNDS_MS[Math.min(i, LatencyBuckets.BOUNDS_MS.length - 1)];
      }
    }
    return LatencyBuckets.BOUNDS_MS[LatencyBuckets.BOUNDS_MS.length - 1];
  }

  /** Adds another distribution's counts into this one's (same buckets). */
  public Distribution plus(Distribution other) {
    long[] sum = buckets.clone();
    for (int i = 0; i < sum.length; i++) {
      sum[i] += other.buckets[i];
    }
    return new Distribution(sum, sumMs + other.sumMs);
  }
}
