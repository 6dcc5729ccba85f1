package dev.delayq.supervisor.web;

import dev.delayq.metrics.Distribution;
import dev.delayq.metrics.StatsHash;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Bounds the job types that get metric series of their own: the first {@code max} seen (at the
 * first scrape the busiest first) keep theirs for the life of this supervisor, and every other
 * type is summed under {@code type="other"}. Any Redis client can write a record of any type,
 * so without a cap the series would grow with every type ever seen.
 */
final class TypeCap {
  static final String OTHER = "other";

  private final int max;
  private final Set<String> admitted = new HashSet<>();

  TypeCap(int max) {
    this.max = max;
  }

  /**
   * The stats hash with its per-type counts and durations under their series' type label: a
   * type's own while admitted, else "other". Every event of every label is present, 0 when it
   * has seen nothing yet, so a counter exists before its first event.
   */
  synchronized StatsHash apply(StatsHash hash, List<String> events) {
    Map<String, Long> totals = new TreeMap<>();
    hash.counts().values().forEach(perType -> perType.forEach((type, n) -> totals.merge(type, n, Long::sum)));
    hash.durations().keySet().forEach(type -> totals.putIfAbsent(type, 0L));
    List<String> byBusiest = new ArrayList<>(totals.keySet());
    byBusiest.sort(Comparator.comparing((String t) -> -totals.get(t)).thenComparing(t -> t));
    for (String type : byBusiest) {
      if (admitted.size() < max) {
        admitted.add(type);
      }
    }
    Map<String, Map<String, Long>> counts = new TreeMap<>();
    for (String event : events) {
      Map<String, Long> perLabel = new TreeMap<>();
      totals.keySet().forEach(type -> perLabel.put(label(type), 0L));
      hash.counts().getOrDefault(event, Map.of()).forEach((type, n) -> perLabel.merge(label(type), n, Long::sum));
      counts.put(event, perLabel);
    }
    Map<String, Distribution> durations = new TreeMap<>();
    hash.durations().forEach((type, d) -> durations.merge(label(type), d, TypeCap::sum));
    return new StatsHash(counts, hash.lateness(), durations, hash.heldLateness());
  }

  private String label(String type) {
    return admitted.contains(type) ? type : OTHER;
  }

  private static Distribution sum(Distribution a, Distribution b) {
    long[] buckets = a.buckets().clone();
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] += b.buckets()[i];
    }
    return new Distribution(buckets, a.sumMs() + b.sumMs());
  }
}
