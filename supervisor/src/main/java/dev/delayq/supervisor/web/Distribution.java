package dev.delayq.supervisor.web;

import dev.delayq.metrics.LatencyBuckets;

/**
 * Counts of one latency histogram, per {@link LatencyBuckets} bucket (not cumulative; the last
 * is +Inf), and the sum of the values in milliseconds.
 */
record Distribution(long[] buckets, long sumMs) {
  static final int SIZE = LatencyBuckets.BOUNDS_MS.length + 1;

  static Distribution empty() {
    return new Distribution(new long[SIZE], 0);
  }

  long count() {
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
  double quantileMs(double q) {
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
}
