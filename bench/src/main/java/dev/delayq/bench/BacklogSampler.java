package dev.delayq.bench;

import dev.delayq.redis.DelayedReads;
import dev.delayq.redis.Keys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where a precision run's backlog waits, sampled every 20 ms on a thread of its own: per shard,
 * the jobs already due but still in {@code delayed} (the scheduler's part of the lateness; read
 * through readDelayed.lua, which knows the time wheel) and the length of {@code ready} (the
 * consumers' part). Two light reads per shard per sample, so it
 * can run on a cluster at 5,000 jobs/s where a MONITOR cannot. With DELAYQ_BENCH_TRACE_DIR set,
 * every sample also goes to {@code <dir>/backlog.txt} ("ms since start, overdue, ready" per shard).
 */
final class BacklogSampler implements AutoCloseable {
  private static final long EVERY_MS = 20;

  private final UnifiedJedis redis;
  private final DelayedReads delayed;
  private final List<Keys> shards;
  private final Thread thread;
  private final List<long[]> samples = new ArrayList<>();
  private volatile boolean stop;

  private BacklogSampler(UnifiedJedis redis, List<Keys> shards) {
    this.redis = redis;
    this.delayed = new DelayedReads(redis);
    this.shards = shards;
    this.thread = new Thread(this::run, "backlog-sampler");
    this.thread.setDaemon(true);
  }

  static BacklogSampler start(UnifiedJedis redis, Keys keys) {
    List<Keys> shards = new ArrayList<>();
    for (int s = 0; s < keys.shards(); s++) {
      shards.add(keys.shard(s));
    }
    BacklogSampler b = new BacklogSampler(redis, shards);
    b.thread.start();
    return b;
  }

  private void run() {
    long t0 = System.currentTimeMillis();
    while (!stop) {
      long now = System.currentTimeMillis();
      long[] sample = new long[1 + 2 * shards.size()];
      sample[0] = now - t0;
      for (int s = 0; s < shards.size(); s++) {
        // the time wheel's buckets and the old ZSET: a ZCOUNT of the delayed key alone reads only
        // the latter, empty since the wheel, and said 0 whatever the scheduler left due
        sample[1 + 2 * s] = delayed.count(shards.get(s), "-inf", Long.toString(now));
        sample[2 + 2 * s] = redis.llen(shards.get(s).ready());
      }
      synchronized (samples) {
        samples.add(sample);
      }
      try {
        Thread.sleep(EVERY_MS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Stops sampling: the mean and most jobs overdue in delayed and waiting in ready, all shards summed. */
  Map<String, Object> summary() throws InterruptedException {
    close();
    List<long[]> all;
    synchronized (samples) {
      all = new ArrayList<>(samples);
    }
    long overdueSum = 0, overdueMax = 0, readySum = 0, readyMax = 0;
    List<String> lines = new ArrayList<>();
    for (long[] s : all) {
      long overdue = 0, ready = 0;
      StringBuilder line = new StringBuilder().append(s[0]);
      for (int i = 0; i < shards.size(); i++) {
        overdue += s[1 + 2 * i];
        ready += s[2 + 2 * i];
        line.append(' ').append(s[1 + 2 * i]).append(',').append(s[2 + 2 * i]);
      }
      lines.add(line.toString());
      overdueSum += overdue;
      overdueMax = Math.max(overdueMax, overdue);
      readySum += ready;
      readyMax = Math.max(readyMax, ready);
    }
    String traceDir = System.getenv("DELAYQ_BENCH_TRACE_DIR");
    if (traceDir != null && !traceDir.isBlank()) {
      try {
        Files.write(Path.of(traceDir, "backlog.txt"), lines);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    int n = Math.max(1, all.size());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("samples", all.size());
    out.put("overdue_in_delayed_mean", Measures.round2((double) overdueSum / n));
    out.put("overdue_in_delayed_max", overdueMax);
    out.put("ready_mean", Measures.round2((double) readySum / n));
    out.put("ready_max", readyMax);
    return out;
  }

  @Override
  public void close() throws InterruptedException {
    stop = true;
    thread.join(1000);
  }
}
