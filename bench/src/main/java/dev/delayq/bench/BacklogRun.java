package dev.delayq.bench;

import dev.delayq.JobRequest;
import dev.delayq.redis.JobBrowser;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code delayq bench backlog}: the same figures on an empty queue and on a queue holding a large
 * backlog of pending jobs, in one run. The backlog is written through the real producer in big
 * pipelined batches (so its layout is the one users get), each job due 1 min to 24 h after its
 * enqueue. On each queue: batched and one-by-one enqueue, forward and drain of a batch of probe
 * jobs falling due together, lateness of probes falling due over 10 s, and for check, recover,
 * stats and two job-browser pages the slowest single Redis call (SLOWLOG) and the wall time, with
 * the bench JVM's heap during check and recover. On the backlog also Redis memory per pending job
 * at 100,000 jobs and at all of them.
 */
final class BacklogRun {
  /** Jobs per pipelined batch of the fill. */
  static final int FILL_BATCH = 10_000;
  /** The slow log's threshold: every call over a millisecond is named. */
  static final long SLOW_US = 1000;
  private static final long MIN_DELAY_MS = 60_000;
  private static final long SPREAD_MS = 86_400_000;

  private final Measures measures;
  private final BenchRedis redis;
  private final String payload;

  BacklogRun(Measures measures) {
    this.measures = measures;
    this.redis = measures.redis();
    this.payload = measures.payload();
  }

  /**
   * {@code pending} jobs of backlog; {@code n} jobs per enqueue and drain figure; the probes run on
   * {@code workers} x {@code threads} consumers.
   */
  Map<String, Object> run(long pending, int n, int workers, int threads) throws Exception {
    if (!redis.cluster().isEmpty()) {
      throw new IllegalArgumentException("bench backlog runs on one Redis (its SLOWLOG): leave out --cluster");
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("pending", pending);
    out.put("jobs_per_figure", n);
    out.put("workers", workers);
    out.put("threads", threads);
    out.put("slow_log_threshold_us", SLOW_US);
    try (SlowLog slow = SlowLog.open(redis.redis(), SLOW_US)) {
      // a warm-up first, thrown away: else the JIT's first minutes count against the empty queue
      progress("warm-up");
      Measures.Queue warm = measures.freshQueue();
      try {
        enqueue(warm, n);
        operatorCalls(warm, slow);
      } finally {
        measures.clear(warm);
      }
      progress("empty queue");
      Map<String, Object> empty = new LinkedHashMap<>();
      Measures.Queue forEnqueue = measures.freshQueue();
      try {
        empty.putAll(enqueue(forEnqueue, n));
      } finally {
        measures.clear(forEnqueue);
      }
      Measures.Queue q = measures.freshQueue();
      try {
        empty.putAll(underWorkers(q, n, workers, threads));
        empty.put("operator_calls", operatorCalls(q, slow));
      } finally {
        measures.clear(q);
      }
      out.put("empty", empty);
      progress("empty queue: " + empty);

      Measures.Queue b = measures.freshQueue();
      try {
        Map<String, Object> backlog = new LinkedHashMap<>(fill(b, pending, slow));
        progress("filled: " + backlog);
        backlog.putAll(enqueue(b, n));
        backlog.putAll(underWorkers(b, n, workers, threads));
        backlog.put("operator_calls", operatorCalls(b, slow));
        out.put("backlog", backlog);
        progress("backlog: " + backlog);
      } finally {
        progress("deleting the backlog");
        measures.clear(b);
      }
    }
    return out;
  }

  /**
   * Writes {@code pending} jobs in pipelined batches; used_memory per job after the first 100,000
   * and after all (the slow log emptied before each reading: its entries are in used_memory).
   */
  private Map<String, Object> fill(Measures.Queue q, long pending, SlowLog slow) {
    // the script cache and the keys' own headers are not a job's cost (as bench memory does)
    q.producer().delay("noop", "{}", Duration.ofHours(30));
    redis.memoryInfo();
    slow.reset();
    long before = redis.usedMemory();
    Map<String, Object> out = new LinkedHashMap<>();
    long t0 = System.nanoTime();
    long nextProgress = 1_000_000;
    for (long done = 0; done < pending; ) {
      int size = (int) Math.min(FILL_BATCH, pending - done);
      q.producer().enqueueAll(spreadJobs("noop", size));
      done += size;
      if (done == Math.min(100_000, pending)) {
        slow.reset();
        out.put("bytes_per_job_at_" + done, Math.round((redis.usedMemory() - before) / (double) done));
      }
      if (done >= nextProgress) {
        progress(String.format("filled %,d of %,d (%.0f s)", done, pending, (System.nanoTime() - t0) / 1e9));
        nextProgress += 1_000_000;
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    slow.reset();
    long after = redis.usedMemory();
    out.put("bytes_per_job_at_" + pending, Math.round((after - before) / (double) pending));
    out.put("used_memory_mb", Math.round(after / 1024.0 / 1024.0));
    out.put("fill_seconds", Measures.round2(seconds));
    out.put("fill_jobs_per_s", Math.round(pending / seconds));
    return out;
  }

  /** {@code size} jobs each due 1 min to 24 h from now, evenly spread. */
  private List<JobRequest> spreadJobs(String type, int size) {
    List<JobRequest> jobs = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      jobs.add(JobRequest.delay(type, payload,
          Duration.ofMillis(MIN_DELAY_MS + ThreadLocalRandom.current().nextLong(SPREAD_MS))));
    }
    return jobs;
  }

  /**
   * Enqueue into q as {@code bench enqueue} does: {@code n} jobs in one batch, then {@code n} one
   * by one from 50 threads; the jobs stay (spread over the same 24 h as the backlog).
   */
  private Map<String, Object> enqueue(Measures.Queue q, int n) throws Exception {
    List<JobRequest> jobs = spreadJobs("noop", n);
    double cpu0 = redis.cpuSeconds();
    long t0 = System.nanoTime();
    q.producer().enqueueAll(jobs);
    double batched = n / ((System.nanoTime() - t0) / 1e9);
    double batchedRedisUs = (redis.cpuSeconds() - cpu0) * 1e6 / n;
    int inFlight = 50;
    int perThread = Math.max(1, n / inFlight);
    ExecutorService pool = Executors.newFixedThreadPool(inFlight);
    try {
      List<Future<?>> futures = new ArrayList<>();
      double cpu1 = redis.cpuSeconds();
      long t1 = System.nanoTime();
      for (int t = 0; t < inFlight; t++) {
        futures.add(pool.submit(() -> {
          for (int i = 0; i < perThread; i++) {
            q.producer().delay("noop", payload,
                Duration.ofMillis(MIN_DELAY_MS + ThreadLocalRandom.current().nextLong(SPREAD_MS)));
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      double single = (double) perThread * inFlight / ((System.nanoTime() - t1) / 1e9);
      double singleRedisUs = (redis.cpuSeconds() - cpu1) * 1e6 / ((double) perThread * inFlight);
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("enqueue_batched_jobs_per_s", Math.round(batched));
      out.put("enqueue_one_by_one_jobs_per_s", Math.round(single));
      // Redis's own CPU a job: whether the rate moved with Redis's work or with the client's
      out.put("enqueue_batched_redis_cpu_us_per_job", Math.round(batchedRedisUs * 100) / 100.0);
      out.put("enqueue_one_by_one_redis_cpu_us_per_job", Math.round(singleRedisUs * 100) / 100.0);
      return out;
    } finally {
      pool.shutdown();
    }
  }

  /**
   * With a real supervisor on q: {@code n} probes due at one ms, forwarded and drained (jobs per
   * second from their due time to the last probe's start), then 2,000 probes due over 10 s (how
   * late each started). The supervisor is stopped before the operator calls.
   */
  private Map<String, Object> underWorkers(Measures.Queue q, int n, int workers, int threads) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    try (SupervisorRun supervisor = measures.supervisor(q, workers, threads)) {
      measures.awaitConsumers(q, workers * threads);
      out.put("drain_jobs_per_s", drain(q, n));
      String log = "bench:backlog-lateness:" + q.name();
      int probes = 2000;
      List<JobRequest> jobs = new ArrayList<>(probes);
      for (int i = 0; i < probes; i++) {
        jobs.add(JobRequest.delay("bench_probe", "{\"log\":\"" + log + "\"}",
            Duration.ofMillis(1000 + (long) i * 10_000 / probes)));
      }
      q.producer().enqueueAll(jobs);
      Map<String, Object> lateness = measures.lateness(q, log, probes, 60, "backlog");
      redis.redis().del(log);
      out.put("lateness_ms", lateness.get("lateness_ms"));
      out.put("lateness_early", lateness.get("early"));
    }
    return out;
  }

  /** Forward and drain of {@code n} probes due at one ms: jobs per second from due to the last start. */
  private long drain(Measures.Queue q, int n) throws Exception {
    for (int attempt = 1; ; attempt++) {
      String log = "bench:backlog-drain:" + q.name() + ":" + attempt;
      try {
        long dueAt = measures.seedDue(q, n, "bench_probe", "{\"log\":\"" + log + "\",\"marker\":true}",
            measures.seedDelayMs(n));
        measures.awaitStamps(log, n, 120 + n / 1000, "the drained probes");
        long last = 0;
        for (String stamp : redis.redis().lrange(log, 0, -1)) {
          last = Math.max(last, Long.parseLong(stamp.substring(stamp.lastIndexOf(',') + 1)));
        }
        return Math.round(n * 1000.0 / Math.max(1, last - dueAt));
      } catch (Measures.SeedingOverran e) {
        if (attempt >= 3) {
          throw e;
        }
        progress(e.getMessage() + "; once more with a longer delay");
        measures.awaitStamps(log, n, 120 + n / 1000, "the overran probes");
      } finally {
        redis.redis().del(log);
      }
    }
  }

  /**
   * check, recover, stats and two job-browser pages (the next hour's first page, and one half-way
   * down the queue) as an operator runs them, no worker running: per call its wall time and the
   * slowest single Redis command it sent; for check and recover the bench JVM's heap.
   */
  private Map<String, Object> operatorCalls(Measures.Queue q, SlowLog slow) throws Exception {
    RedisBroker broker = q.broker();
    long records = measures.records(q);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("check", timed(slow, true, () -> "breaches " + broker.invariantCheck().breaches().size()));
    out.put("recover", timed(slow, true, () -> "recovered " + broker.admin(3).recover().total()));
    out.put("stats", timed(slow, false, () -> {
      broker.admin(3).stats();
      return "flow " + broker.admin(3).flow().paused().size();
    }));
    JobBrowser browser = broker.jobBrowser();
    long now = redis.nowMs();
    out.put("browse_next_hour", timed(slow, false, () -> "rows " + browser.delayed(now, now + 3_600_000,
        new JobBrowser.Query(null, null, 50, 0)).rows().size()));
    out.put("browse_half_way", timed(slow, false, () -> "rows " + browser.delayed(0, Long.MAX_VALUE,
        new JobBrowser.Query(null, null, 50, records / 2)).rows().size()));
    return out;
  }

  private Map<String, Object> timed(SlowLog slow, boolean heap, Callable<String> call) throws Exception {
    slow.reset();
    long[] nanos = new long[1];
    // timed inside: neither the GC before a heap reading nor the slow log's last look counts
    Callable<String> timedCall = () -> {
      long t0 = System.nanoTime();
      try {
        return call.call();
      } finally {
        nanos[0] = System.nanoTime() - t0;
      }
    };
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("wall_ms", 0.0);
    String said;
    if (heap) {
      HeapPeak.Measured<String> m = slow.watching(() -> HeapPeak.of(timedCall));
      said = m.result();
      out.putAll(m.heap());
    } else {
      said = slow.watching(timedCall);
    }
    out.put("wall_ms", Measures.round2(nanos[0] / 1e6));
    out.putAll(slow.read().toMap(slow.thresholdUs()));
    out.put("result", said);
    return out;
  }

  /** When the table is printed at the end, a crash before it (an out-of-memory check) leaves these. */
  private static void progress(String what) {
    System.err.println("bench: backlog: " + what + " (" + Instant.now() + ")");
  }
}
