package dev.delayq.supervisor.web;

import dev.delayq.metrics.Distribution;

import dev.delayq.metrics.StatsHash;

import dev.delayq.redis.Keys;
import dev.delayq.redis.Pipelines;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * Per-second throughput and lateness for the live charts, read from the per-second stats hashes
 * the workers flush. A second that has settled no longer changes, so it is read from Redis once
 * and then served from memory: a chart polling every second costs a few reads, not hundreds.
 */
final class Series {
  static final int MAX_SECONDS = 3600;
  /** Seconds after which a second's hash is complete: workers flush every second. */
  private static final int SETTLE_SECONDS = 3;

  /** One second: counts per event over every type, and lateness quantiles (null: nothing started). */
  record Point(long t, Map<String, Long> counts, Double latenessP50Ms, Double latenessP99Ms) {}

  private final UnifiedJedis redis;
  private final Keys keys;
  private final TreeMap<Long, Point> settled = new TreeMap<>();

  Series(UnifiedJedis redis, Keys keys) {
    this.redis = redis;
    this.keys = keys;
  }

  /** The {@code seconds} full seconds before {@code nowSecond}, oldest first. */
  synchronized List<Point> last(long nowSecond, int seconds) {
    long from = nowSecond - seconds;
    settled.headMap(nowSecond - MAX_SECONDS).clear();
    Map<Long, Response<Map<String, String>>> reads = new LinkedHashMap<>();
    try (AbstractPipeline p = Pipelines.open(redis)) {
      for (long t = from; t < nowSecond; t++) {
        if (!settled.containsKey(t)) {
          reads.put(t, p.hgetAll(keys.statsSecond(t)));
        }
      }
      p.sync();
    }
    List<Point> out = new ArrayList<>(seconds);
    for (long t = from; t < nowSecond; t++) {
      Point point = settled.get(t);
      if (point == null) {
        point = point(t, StatsHash.parse(Pipelines.reply(reads.get(t), "HGETALL of a second's stats")));
        if (t < nowSecond - SETTLE_SECONDS) {
          settled.put(t, point);
        }
      }
      out.add(point);
    }
    return out;
  }

  static Point point(long t, StatsHash hash) {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (String event : QueueCollector.EVENT_ORDER) {
      counts.put(event, hash.total(event));
    }
    Distribution lateness = hash.lateness();
    boolean any = lateness.count() > 0;
    return new Point(t, counts, any ? round(lateness.quantileMs(0.5)) : null,
        any ? round(lateness.quantileMs(0.99)) : null);
  }

  private static double round(double ms) {
    return Math.round(ms * 100) / 100.0;
  }
}
