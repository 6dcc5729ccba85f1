package dev.delayq.supervisor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The lines {@code test_sleep} (and {@code test_timed}) jobs append: where, how often (and when) each job started and ended. */
final class Runs {
  record Run(String what, String id, int attempt, long pid, long atMs) {}

  private final Path log;

  Runs(Path log) {
    this.log = log;
  }

  Path path() {
    return log;
  }

  /** The payload of a test_sleep job that takes {@code ms}. */
  Map<String, Object> payload(long ms) {
    return Map.of("ms", ms, "log", log.toString());
  }

  /** The payload of a test_sleep job that, once started, waits for the file {@code gate} and then takes {@code ms}. */
  Map<String, Object> gatedPayload(long ms, Path gate) {
    return Map.of("ms", ms, "log", log.toString(), "gate", gate.toString());
  }

  List<Run> all() {
    List<Run> out = new ArrayList<>();
    try {
      if (!Files.exists(log)) {
        return out;
      }
      for (String line : Files.readAllLines(log)) {
        String[] f = line.split(" ");
        if (f.length == 4 || f.length == 5) {
          // test_timed lines carry the time too (TimedHandler)
          out.add(new Run(f[0], f[1], Integer.parseInt(f[2]), Long.parseLong(f[3]), f.length == 5 ? Long.parseLong(f[4]) : 0));
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }

  /** The attempts each job started with, in order, for the jobs not in {@code except}. */
  Map<String, List<Integer>> startedAttempts(java.util.Set<String> except) {
    Map<String, List<Integer>> out = new java.util.HashMap<>();
    for (Run r : all()) {
      if (r.what().equals("start") && !except.contains(r.id())) {
        out.computeIfAbsent(r.id(), k -> new ArrayList<>()).add(r.attempt());
      }
    }
    return out;
  }

  List<Run> of(String what, String id) {
    return all().stream().filter(r -> r.what().equals(what) && r.id().equals(id)).toList();
  }
}
