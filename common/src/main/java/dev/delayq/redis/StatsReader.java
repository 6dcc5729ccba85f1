package dev.delayq.redis;

import dev.delayq.metrics.LatencyBuckets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * Reads the statistics behind {@link Admin#stats()} and {@link Admin#dueForecast}: depths and
 * backlog from the queue's structures, rates and lateness from the per-second hashes the
 * workers flush ({@link dev.delayq.metrics.StatsRecorder}). Read-only.
 */
final class StatsReader {
  /** Seconds summed for the "last minute" figures: the 60 full seconds before now. */
  static final int WINDOW_SECONDS = 60;
  static final int MAX_FORECAST_STEPS = 10_000;

  private final UnifiedJedis redis;
  private final Keys keys;
  private final Inspector inspector;

  StatsReader(UnifiedJedis redis, Keys keys, Inspector inspector) {
    this.redis = redis;
    this.keys = keys;
    this.inspector = inspector;
  }

  Admin.Stats read(long nowMs) {
    Inspector.Depths depths = inspector.depths();
    long nowSecond = nowMs / 1000;
    Response<Long> dueDelayed;
    Response<Long> ready;
    Response<List<Tuple>> oldestDelayed;
    Response<List<String>> oldestReady;
    Response<Map<String, String>> cumulative;
    List<Response<Map<String, String>>> seconds = new ArrayList<>(WINDOW_SECONDS);
    try (AbstractPipeline p = redis.pipelined()) {
      dueDelayed = p.zcount(keys.delayed(), "-inf", Long.toString(nowMs));
      ready = p.llen(keys.ready());
      oldestDelayed = p.zrangeByScoreWithScores(keys.delayed(), "-inf", Long.toString(nowMs), 0, 1);
      oldestReady = p.lrange(keys.ready(), -1, -1);
      cumulative = p.hgetAll(keys.stats());
      for (long s = nowSecond - WINDOW_SECONDS; s < nowSecond; s++) {
        seconds.add(p.hgetAll(keys.statsSecond(s)));
      }
      p.sync();
    }
    long oldestDue = Long.MAX_VALUE;
    if (!oldestDelayed.get().isEmpty()) {
      oldestDue = (long) oldestDelayed.get().get(0).getScore();
    }
    if (!oldestReady.get().isEmpty()) {
      String raw = redis.hget(keys.jobs(), oldestReady.get().get(0));
      long readyDue = dueAtOf(raw);
      if (readyDue > 0) {
        oldestDue = Math.min(oldestDue, readyDue);
      }
    }
    long overdue = oldestDue == Long.MAX_VALUE ? 0 : Math.max(0, nowMs - oldestDue);

    long finished = 0;
    long[] lateness = new long[LatencyBuckets.BOUNDS_MS.length + 1];
    for (Response<Map<String, String>> second : seconds) {
      for (Map.Entry<String, String> e : second.get().entrySet()) {
        String f = e.getKey();
        if (f.startsWith("count:succeeded:") || f.startsWith("count:failed:")) {
          finished += parse(e.getValue());
        } else if (f.startsWith("lateness:")) {
          int bucket = bucketIndex(f.substring("lateness:".length()));
          if (bucket >= 0) {
            lateness[bucket] += parse(e.getValue());
          }
        }
      }
    }
    long started = 0;
    for (long n : lateness) {
      started += n;
    }
    return new Admin.Stats(depths, dueDelayed.get() + ready.get(), overdue,
        finished / (double) WINDOW_SECONDS, quantile(lateness, 0.50), quantile(lateness, 0.99),
        started, counters(cumulative.get()), nowMs);
  }

  /** The upper bound in ms of the bucket holding quantile q; the last bound for +Inf; null when empty. */
  static Long quantile(long[] buckets, double q) {
    long total = 0;
    for (long n : buckets) {
      total += n;
    }
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

  /** type -> event -> count, from the {@code count:<event>:<type>} fields, sorted by type. */
  static Map<String, Map<String, Long>> counters(Map<String, String> fields) {
    Map<String, Map<String, Long>> byType = new TreeMap<>();
    for (Map.Entry<String, String> e : fields.entrySet()) {
      String f = e.getKey();
      if (!f.startsWith("count:")) {
        continue;
      }
      int colon = f.indexOf(':', "count:".length());
      if (colon < 0) {
        continue;
      }
      String event = f.substring("count:".length(), colon);
      String type = f.substring(colon + 1);
      byType.computeIfAbsent(type, t -> new TreeMap<>()).merge(event, parse(e.getValue()), Long::sum);
    }
    return byType;
  }

  List<Long> dueForecast(long nowMs, Duration horizon, Duration step) {
    if (step == null || step.toMillis() <= 0 || horizon == null || horizon.toMillis() <= 0) {
      throw new IllegalArgumentException("forecast horizon and step must be positive, got "
          + horizon + " and " + step);
    }
    long steps = (horizon.toMillis() + step.toMillis() - 1) / step.toMillis();
    if (steps > MAX_FORECAST_STEPS) {
      throw new IllegalArgumentException("forecast of " + steps + " steps is too many (at most "
          + MAX_FORECAST_STEPS + ")");
    }
    long stepMs = step.toMillis();
    List<Response<Long>> counts = new ArrayList<>((int) steps);
    try (AbstractPipeline p = redis.pipelined()) {
      for (long i = 0; i < steps; i++) {
        counts.add(p.zcount(keys.delayed(), "(" + (nowMs + i * stepMs), Long.toString(nowMs + (i + 1) * stepMs)));
      }
      p.sync();
    }
    List<Long> out = new ArrayList<>(counts.size());
    for (Response<Long> r : counts) {
      out.add(r.get());
    }
    return out;
  }

  private static long dueAtOf(String raw) {
    if (raw == null) {
      return 0;
    }
    var node = Admin.tree(raw);
    return node == null ? 0 : node.path("dueAt").asLong(0);
  }

  private static int bucketIndex(String text) {
    try {
      int i = Integer.parseInt(text);
      return i >= 0 && i <= LatencyBuckets.BOUNDS_MS.length ? i : -1;
    } catch (NumberFormatException e) {
      return -1;  // lateness:sum, lateness:count
    }
  }

  private static long parse(String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
