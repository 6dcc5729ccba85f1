package dev.delayq.bench;

import dev.delayq.Batch;
import dev.delayq.BatchCallback;
import dev.delayq.BatchStatus;
import dev.delayq.JobRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code delayq bench batch}: jobs per second through a batch of {@code n} jobs against the same
 * jobs as plain ones, in one run on the same workers. Each side: the enqueue (plain: the
 * pipelined enqueueAll; batch: Batch.addAll, whose jobs are checked and written 1,000 a call),
 * then the drain of all of them falling due at one ms (plain: until the last is gone; batch:
 * until its callback, enqueued with the last job's end, is gone too), with Redis CPU per job.
 */
final class BatchRun {
  private final Measures measures;
  private final BenchRedis redis;
  private final String payload;

  BatchRun(Measures measures) {
    this.measures = measures;
    this.redis = measures.redis();
    this.payload = measures.payload();
  }

  Map<String, Object> run(int n, int workers, int threads) throws Exception {
    if (measures.shards() > 1) {
      throw new IllegalArgumentException("bench batch: workflows need queue.shards 1; leave out --shards");
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("jobs", n);
    out.put("workers", workers);
    out.put("threads", threads);
    Measures.Queue q = measures.freshQueue();
    try (SupervisorRun supervisor = measures.supervisor(q, workers, threads)) {
      measures.awaitConsumers(q, workers * threads);
      out.putAll(plain(q, n));
      out.putAll(batch(q, n));
      out.put("batch_vs_plain_drain", Measures.round2(((Number) out.get("batch_drain_jobs_per_s")).doubleValue()
          / ((Number) out.get("plain_drain_jobs_per_s")).doubleValue()));
    } finally {
      measures.clear(q);
    }
    return out;
  }

  private Map<String, Object> plain(Measures.Queue q, int n) throws Exception {
    long dueAt = measures.redisNowMs() + measures.seedDelayMs(n) * 2;
    List<JobRequest> jobs = jobs(n, dueAt);
    long t0 = System.nanoTime();
    q.producer().enqueueAll(jobs);
    double enqueueRate = n / ((System.nanoTime() - t0) / 1e9);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("plain_enqueue_jobs_per_s", Math.round(enqueueRate));
    drained(q, n, dueAt, "plain", out);
    return out;
  }

  private Map<String, Object> batch(Measures.Queue q, int n) throws Exception {
    long dueAt = measures.redisNowMs() + measures.seedDelayMs(n) * 3;
    List<JobRequest> jobs = jobs(n, dueAt);
    long t0 = System.nanoTime();
    Batch batch = q.producer().openBatch();
    batch.addAll(jobs);
    batch.close(BatchCallback.of("noop", payload), null);
    double addRate = n / ((System.nanoTime() - t0) / 1e9);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("batch_add_jobs_per_s", Math.round(addRate));
    drained(q, n, dueAt, "batch", out);
    BatchStatus s = q.producer().batchStatus(batch.id()).orElseThrow();
    out.put("batch_state", s.state().name().toLowerCase());
    out.put("batch_done", s.done());
    return out;
  }

  private List<JobRequest> jobs(int n, long dueAt) {
    List<JobRequest> jobs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      jobs.add(JobRequest.at("noop", payload, Instant.ofEpochMilli(dueAt)));
    }
    return jobs;
  }

  /** Waits until the queue holds no record from {@code dueAt} on; puts the drain rate and Redis CPU per job. */
  private void drained(Measures.Queue q, int n, long dueAt, String side, Map<String, Object> out)
      throws InterruptedException {
    long wait = dueAt - measures.redisNowMs();
    if (wait < 0) {
      throw new IllegalStateException(side + ": writing " + n + " jobs took longer than their delay (a busy"
          + " machine); run again with a smaller --n");
    }
    Thread.sleep(wait);
    double cpu0 = redis.cpuSeconds();
    while (measures.records(q) > 0) {
      Thread.sleep(2);
    }
    long doneAt = measures.redisNowMs();
    out.put(side + "_drain_jobs_per_s", Math.round(n * 1000.0 / Math.max(1, doneAt - dueAt)));
    out.put(side + "_redis_cpu_us_per_job", Measures.round2((redis.cpuSeconds() - cpu0) * 1e6 / n));
  }
}
