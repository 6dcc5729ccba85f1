package dev.delayq.e2e;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * What the test handlers recorded: one entry per handler start, in start order, pushed to a
 * Redis list named by the job's payload ("log").
 */
record RunLog(UnifiedJedis redis, String key) {

  /**
   * One start of a handler, as {@link dev.delayq.e2e.handlers.Recorder} writes it; {@code tickMs}
   * is its {@code JobContext.tickAt()}, -1 when empty.
   */
  record Run(String id, int attempt, long startMs, long dueMs, long pid, long tickMs) {
    long latenessMs() {
      return startMs - dueMs;
    }
  }

  List<Run> runs() {
    List<Run> out = new ArrayList<>();
    for (String line : redis.lrange(key, 0, -1)) {
      String[] f = line.split(",");
      out.add(new Run(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
          Long.parseLong(f[4]), Long.parseLong(f[5])));
    }
    return out;
  }

  long size() {
    return redis.llen(key);
  }

  /** The runs of each job, in start order. */
  java.util.Map<String, List<Run>> byId() {
    java.util.Map<String, List<Run>> out = new java.util.LinkedHashMap<>();
    for (Run r : runs()) {
      out.computeIfAbsent(r.id(), k -> new ArrayList<>()).add(r);
    }
    return out;
  }

  /** The attempts each job ran with, in start order. */
  java.util.Map<String, List<Integer>> attemptsById() {
    java.util.Map<String, List<Integer>> out = new java.util.LinkedHashMap<>();
    byId().forEach((id, runs) -> out.put(id, runs.stream().map(Run::attempt).toList()));
    return out;
  }
}
