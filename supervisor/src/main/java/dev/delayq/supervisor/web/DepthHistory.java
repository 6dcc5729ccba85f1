package dev.delayq.supervisor.web;

import dev.delayq.redis.Inspector;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Queue depths over the last hour, for the depth chart. Redis keeps no history of depths, so
 * each status read adds a sample (at most one per second): the chart covers the time the
 * dashboard was watched, and nothing is read while nobody looks.
 */
final class DepthHistory {
  record Sample(long t, long delayed, long ready, long inFlight, long dead) {}

  private final TreeMap<Long, Sample> samples = new TreeMap<>();

  synchronized void add(long second, Inspector.Depths d) {
    samples.put(second, new Sample(second, d.delayed(), d.ready(), d.inFlight(), d.dead()));
    samples.headMap(second - Series.MAX_SECONDS).clear();
  }

  synchronized List<Sample> since(long second) {
    return new ArrayList<>(samples.tailMap(second, true).values());
  }
}
