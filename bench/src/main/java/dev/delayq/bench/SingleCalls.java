package dev.delayq.bench;

import dev.delayq.DelayQueue;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The latency of one synchronous {@code delay()} call, as a web request that enqueues one job
 * waits for it: one thread, each call waiting for its reply, paced at {@code perSecond} calls a
 * second (a steady trickle, not a burst: a call meets no other call to share a script call
 * with). Each call is timed from its start to its return; a call that starts late (the one
 * before it, or the machine, held the thread past its slot) starts at once and the pace goes
 * on from there, so no burst follows a stall.
 */
final class SingleCalls {
  private SingleCalls() {}

  /** {@code single_call_p50_ms}, {@code single_call_p99_ms}, {@code single_call_max_ms} and the calls made. */
  static Map<String, Object> measure(DelayQueue producer, String payload, int perSecond, int seconds) {
    Histogram micros = new Histogram(60_000_000L, 3);
    long interval = 1_000_000_000L / perSecond;
    int calls = perSecond * seconds;
    long next = System.nanoTime();
    for (int i = 0; i < calls; i++) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      long t0 = System.nanoTime();
      producer.delay("noop", payload, Duration.ofMillis(ThreadLocalRandom.current().nextLong(60_000) + 60_000));
      long t1 = System.nanoTime();
      micros.recordValue(Math.max(0, (t1 - t0) / 1_000));
      next = Math.max(next + interval, t1);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("single_call_p50_ms", ms(micros.getValueAtPercentile(50)));
    out.put("single_call_p99_ms", ms(micros.getValueAtPercentile(99)));
    out.put("single_call_max_ms", ms(micros.getMaxValue()));
    out.put("single_call_calls", calls);
    out.put("single_call_per_s", perSecond);
    return out;
  }

  private static double ms(long micros) {
    return Math.round(micros / 10.0) / 100.0;
  }
}
