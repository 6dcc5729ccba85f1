package dev.delayq.supervisor.web;

import dev.delayq.metrics.Distribution;

import dev.delayq.metrics.StatsHash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.metrics.LatencyBuckets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WebStatsHashTest {
  private static Map<String, String> fields(String... pairs) {
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      out.put(pairs[i], pairs[i + 1]);
    }
    return out;
  }

  @Test
  void fieldsOfTheStatsRecorderAreReadBackPerEventTypeAndBucket() {
    StatsHash h = StatsHash.parse(fields(
        "count:succeeded:order_close", "7",
        "count:succeeded:stock_release", "3",
        "count:dead:a:b", "1",
        "lateness:0", "4", "lateness:3", "6", "lateness:sum", "50", "lateness:count", "10",
        "duration:order_close:2", "7", "duration:order_close:sum", "21", "duration:order_close:count", "7",
        "something:new", "9", "lateness:99", "5", "count:broken", "1"));
    assertEquals(Map.of("order_close", 7L, "stock_release", 3L), h.counts().get("succeeded"));
    assertEquals(10, h.total("succeeded"));
    assertEquals(Map.of("a:b", 1L), h.counts().get("dead"), "a type may hold a colon");
    assertEquals(10, h.lateness().count(), "unknown buckets are skipped");
    assertEquals(50, h.lateness().sumMs());
    long[] expected = new long[LatencyBuckets.BOUNDS_MS.length + 1];
    expected[2] = 7;
    assertArrayEquals(expected, h.durations().get("order_close").buckets());
    assertEquals(21, h.durations().get("order_close").sumMs());
  }

  @Test
  void quantilesInterpolateWithinTheirBucketAsHistogramQuantileDoes() {
    long[] b = new long[LatencyBuckets.BOUNDS_MS.length + 1];
    b[0] = 50;   // (0, 1] ms
    b[3] = 50;   // (5, 10] ms
    Distribution d = new Distribution(b, 0);
    assertEquals(1.0, d.quantileMs(0.5), 1e-9);
    assertEquals(5 + 5 * 0.98, d.quantileMs(0.99), 1e-9);
    assertEquals(0.5, d.quantileMs(0.25), 1e-9);
    assertTrue(Double.isNaN(Distribution.empty().quantileMs(0.5)));
    long[] slow = new long[LatencyBuckets.BOUNDS_MS.length + 1];
    slow[slow.length - 1] = 3;
    assertEquals(60_000, new Distribution(slow, 0).quantileMs(0.99), 1e-9, "+Inf reports the last bound");
  }

  @Test
  void aSecondBecomesOneChartPoint() {
    Series.Point p = Series.point(42, StatsHash.parse(Map.of("count:succeeded:x", "5", "count:failed:y", "1",
        "lateness:1", "2")));
    assertEquals(42, p.t());
    assertEquals(5, p.counts().get("succeeded"));
    assertEquals(1, p.counts().get("failed"));
    assertEquals(0, p.counts().get("retried"));
    assertEquals(1.5, p.latenessP50Ms(), 1e-9);
    assertEquals(null, Series.point(43, StatsHash.parse(Map.of())).latenessP99Ms());
  }
}
