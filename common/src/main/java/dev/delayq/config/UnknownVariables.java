package dev.delayq.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * DELAYQ_* variables that set nothing: a misspelled one ({@code DELAYQ_WORKER_THREADZ}) would
 * otherwise be ignored in silence and the default run instead. Each is named with the known
 * variable nearest to it by edit distance, and its key. The variables delayq reads that are not
 * config keys (the home, the launchers' JVM options, what the supervisor hands its children,
 * the test and benchmark harnesses' own) are not warned about.
 */
final class UnknownVariables {
  /** Read by the launchers, the supervisor and its children, not by the config. */
  static final Set<String> NOT_CONFIG = Set.of("DELAYQ_HOME", "DELAYQ_SUPERVISOR_OPTS", "DELAYQ_CLI_OPTS",
      "DELAYQ_CHILD_NAME", "DELAYQ_SUPERVISOR_PID", "DELAYQ_HOST");
  /** Prefixes of the test fixtures' and the benchmark's variables. */
  private static final List<String> HARNESS_PREFIXES = List.of("DELAYQ_TEST_", "DELAYQ_BENCH_");
  /** Warned about already in this JVM: the config is read several times by one process. */
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

  private UnknownVariables() {}

  /**
   * One warning per DELAYQ_* variable of {@code env} that is neither in {@code known} (variable
   * to key) nor in {@link #NOT_CONFIG}, in name order.
   */
  static List<String> warnings(Map<String, String> env, Map<String, String> known) {
    List<String> out = new ArrayList<>();
    for (String name : new TreeSet<>(env.keySet())) {
      if (!name.startsWith("DELAYQ_") || known.containsKey(name) || NOT_CONFIG.contains(name)
          || HARNESS_PREFIXES.stream().anyMatch(name::startsWith)) {
        continue;
      }
      String nearest = nearest(name, known.keySet());
      out.add(name + " is not a delayq variable and is ignored"
          + (nearest == null ? "" : "; did you mean " + nearest + " (" + known.get(nearest) + ")?"));
    }
    return out;
  }

  /** Gives each warning of {@code warnings} to {@code sink} once in this JVM. */
  static void reportOnce(List<String> warnings, Consumer<String> sink) {
    for (String w : warnings) {
      if (WARNED.add(w)) {
        sink.accept(w);
      }
    }
  }

  private static String nearest(String name, Set<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String c : new TreeSet<>(candidates)) {
      int d = distance(name, c);
      if (d < bestDistance) {
        best = c;
        bestDistance = d;
      }
    }
    return best;
  }

  /** Levenshtein distance: insertions, deletions and substitutions of one character. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitute, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] t = previous;
      previous = current;
      current = t;
    }
    return previous[b.length()];
  }
}
