package example.orders;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The runs the apps' LedgerHandler appended to one file, read by the test across JVMs. */
final class RunLedger {
  /** One start of a job's handler: in which JVM, at which attempt, and when against its due time. */
  record Run(String id, int attempt, long pid, long startMs, long dueMs) {
    long latenessMs() {
      return startMs - dueMs;
    }
  }

  private final Path file;

  RunLedger(Path file) {
    this.file = file;
  }

  Path file() {
    return file;
  }

  /** The runs of {@code ids}, per id in the order they started; an id that never ran is absent. */
  Map<String, List<Run>> runsOf(Set<String> ids) {
    Map<String, List<Run>> out = new LinkedHashMap<>();
    for (Run r : all()) {
      if (ids.contains(r.id())) {
        out.computeIfAbsent(r.id(), k -> new ArrayList<>()).add(r);
      }
    }
    out.values().forEach(runs -> runs.sort((a, b) -> Long.compare(a.startMs(), b.startMs())));
    return out;
  }

  private List<Run> all() {
    if (!Files.exists(file)) {
      return List.of();
    }
    try {
      List<Run> runs = new ArrayList<>();
      for (String line : Files.readAllLines(file)) {
        String[] f = line.split(",");
        if (f.length == 5) { // (a line still being written is left for the next read)
          runs.add(new Run(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
              Long.parseLong(f[4])));
        }
      }
      return runs;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** "p50 Xms, p99 Yms, max Zms (n jobs)" of {@code latenesses}. */
  static String percentiles(Collection<Long> latenesses) {
    if (latenesses.isEmpty()) {
      return "no jobs";
    }
    List<Long> sorted = latenesses.stream().sorted().toList();
    return "p50 " + at(sorted, 0.50) + " ms, p99 " + at(sorted, 0.99) + " ms, max " + sorted.get(sorted.size() - 1)
        + " ms (" + sorted.size() + " jobs)";
  }

  static long at(List<Long> sorted, double q) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1));
  }
}
