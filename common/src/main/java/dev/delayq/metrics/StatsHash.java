package dev.delayq.metrics;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One stats hash read back (the cumulative one or one second's; fields as
 * {@link StatsRecorder} writes them): counts per event and job type, the lateness histogram (and apart,
 * that of jobs a pause held),
 * and the handler duration histogram per type. The one reader of that format, next to its one
 * writer. Fields it does not know are skipped, so newer writers do not break older readers.
 */
public record StatsHash(Map<String, Map<String, Long>> counts, Distribution lateness,
    Map<String, Distribution> durations, Distribution heldLateness) {

  public static StatsHash parse(Map<String, String> fields) {
    Map<String, Map<String, Long>> counts = new TreeMap<>();
    long[] lateness = new long[Distribution.SIZE];
    long latenessSum = 0;
    long[] held = new long[Distribution.SIZE];
    long heldSum = 0;
    Map<String, long[]> durationBuckets = new TreeMap<>();
    Map<String, Long> durationSums = new TreeMap<>();
    for (Map.Entry<String, String> e : fields.entrySet()) {
      String f = e.getKey();
      long n = number(e.getValue());
      if (f.startsWith("count:")) {
        int colon = f.indexOf(':', 6);
        if (colon > 6 && colon < f.length() - 1) {
          counts.computeIfAbsent(f.substring(6, colon), k -> new TreeMap<>())
              .merge(f.substring(colon + 1), n, Long::sum);
        }
      } else if (f.startsWith("lateness:")) {
        String part = f.substring(9);
        if (part.equals("sum")) {
          latenessSum = n;
        } else {
          add(lateness, part, n);
        }
      } else if (f.startsWith("heldLateness:")) {
        String part = f.substring(13);
        if (part.equals("sum")) {
          heldSum = n;
        } else {
          add(held, part, n);
        }
      } else if (f.startsWith("duration:")) {
        int colon = f.lastIndexOf(':');
        if (colon > 9) {
          String type = f.substring(9, colon);
          String part = f.substring(colon + 1);
          if (part.equals("sum")) {
            durationSums.put(type, n);
          } else if (!part.equals("count")) {
            add(durationBuckets.computeIfAbsent(type, t -> new long[Distribution.SIZE]), part, n);
          }
        }
      }
    }
    Map<String, Distribution> durations = new TreeMap<>();
    durationBuckets.forEach((type, b) -> durations.put(type, new Distribution(b, durationSums.getOrDefault(type, 0L))));
    return new StatsHash(counts, new Distribution(lateness, latenessSum), durations, new Distribution(held, heldSum));
  }

  /**
   * The series whose fields hold no integer (written by another client): {@code count:<event>:<type>},
   * {@code lateness}, {@code heldLateness} or {@code duration:<type>}. {@link #parse} reads such a
   * field as 0; a reader that must not show a made-up figure ({@code /metrics}) leaves them out.
   */
  public static Set<String> unreadableSeries(Map<String, String> fields) {
    Set<String> out = new TreeSet<>();
    fields.forEach((f, value) -> {
      if (isInteger(value)) {
        return;
      }
      if (f.startsWith("count:")) {
        out.add(f);
      } else if (f.startsWith("lateness:")) {
        out.add("lateness");
      } else if (f.startsWith("heldLateness:")) {
        out.add("heldLateness");
      } else if (f.startsWith("duration:") && f.lastIndexOf(':') > 9) {
        out.add("duration:" + f.substring(9, f.lastIndexOf(':')));
      }
    });
    return out;
  }

  private static boolean isInteger(String value) {
    try {
      Long.parseLong(value);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** The count of {@code event} over every type. */
  public long total(String event) {
    return counts.getOrDefault(event, Map.of()).values().stream().mapToLong(Long::longValue).sum();
  }

  /** The counts turned around: type -> event -> count, sorted by type. */
  public Map<String, Map<String, Long>> countsByType() {
    Map<String, Map<String, Long>> byType = new TreeMap<>();
    counts.forEach((event, perType) -> perType.forEach((type, n) ->
        byType.computeIfAbsent(type, t -> new TreeMap<>()).put(event, n)));
    return byType;
  }

  private static void add(long[] buckets, String index, long n) {
    try {
      int i = Integer.parseInt(index);
      if (i >= 0 && i < buckets.length) {
        buckets[i] += n;
      }
    } catch (NumberFormatException e) {
      // "count" and fields of a newer writer
    }
  }

  private static long number(String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
