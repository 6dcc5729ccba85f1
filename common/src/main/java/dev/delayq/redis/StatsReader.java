package dev.delayq.redis;

import dev.delayq.metrics.Distribution;
import dev.delayq.metrics.StatsHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

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
    Inspector.Backlog backlog = inspector.backlog(nowMs);
    long nowSecond = nowMs / 1000;
    int k = keys.shards();
    List<Response<Map<String, String>>> cumulative = new ArrayList<>(k);
    List<Response<Map<String, String>>> seconds = new ArrayList<>(WINDOW_SECONDS);
    // a cluster's pipeline sends each command to the master of its key's slot: one trip per master
    try (AbstractPipeline p = Pipelines.open(redis)) {
      for (Keys shard : keys.allShards()) {
        // enqueues count in their shard's hash, workers in shard 0's
        cumulative.add(p.hgetAll(shard.stats()));
      }
      for (long s = nowSecond - WINDOW_SECONDS; s < nowSecond; s++) {
        seconds.add(p.hgetAll(keys.statsSecond(s)));
      }
      p.sync();
    }
    Map<String, String> counters = k == 1 ? Pipelines.reply(cumulative.get(0), "HGETALL of the stats") : new HashMap<>();
    for (int i = 0; k > 1 && i < k; i++) {
      Pipelines.reply(cumulative.get(i), "HGETALL of the stats").forEach((field, n) -> counters.merge(field, n,
          (a, b) -> Long.toString(Long.parseLong(a) + Long.parseLong(b))));
    }

    long finished = 0;
    Distribution lateness = Distribution.empty();
    for (Response<Map<String, String>> second : seconds) {
      StatsHash hash = StatsHash.parse(Pipelines.reply(second, "HGETALL of a second's stats"));
      finished += hash.total("succeeded") + hash.total("failed") + hash.total("cancelled");
      lateness = lateness.plus(hash.lateness());
    }
    return new Admin.Stats(depths, backlog.jobs(), backlog.overdueMs(nowMs),
        finished / (double) WINDOW_SECONDS, lateness.upperBoundMs(0.50), lateness.upperBoundMs(0.99),
        lateness.count(), StatsHash.parse(counters).countsByType(), nowMs);
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
    // a pipeline over the shards a round of bounded calls: one round trip per master
    List<Long> counts = new DelayedReads(redis).countsPerStepOfEachShard(keys, nowMs, stepMs, steps);
    List<Long> out = new ArrayList<>((int) steps);
    for (int i = 0; i < counts.size(); i++) {
      int at = (int) (i % steps);
      if (at == out.size()) {
        out.add(counts.get(i));
      } else {
        out.set(at, out.get(at) + counts.get(i));
      }
    }
    return out;
  }
}
