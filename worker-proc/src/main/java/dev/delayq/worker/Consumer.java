package dev.delayq.worker;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.job.RetryPolicy;
import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.LogText;
import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A Consumer is one thread of a worker: it claims due jobs into its own in-flight list (a fair
 * share of the backlog in one call, or one job with BLMOVE when nothing waits), runs each
 * handler on this thread under the {@link Watchdog}'s time limit, and hands outcomes to the
 * {@link Finisher}, whose sender acknowledges finished jobs together. A crash at any moment leaves its
 * jobs in its in-flight list, where they are recovered. It stops claiming when told to be
 * quiet, after finishing the jobs in hand.
 */
final class Consumer implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(Consumer.class);

  /** The settings a consumer runs by. */
  record Settings(double pollSeconds, long heartbeatTtlMs, int prefetch, Duration jobTimeout,
      RetryPolicy retryPolicy) {}

  private final String id;
  private final RedisBroker broker;
  private final HandlerRegistry handlers;
  private final Finisher finisher;
  private final Settings settings;
  private final BooleanSupplier quiet;
  private final Watchdog watchdog;
  private final StatsRecorder stats;
  private final RedisOutage outage;
  private final FailoverResync resync;
  private long seenMasterEpoch;
  private volatile Watchdog.Slot slot;
  /** The current batch, and the index of its first job not started yet. */
  private volatile List<RedisBroker.Claimed> current = List.of();
  private volatile int nextUnstarted;

  Consumer(String id, RedisBroker broker, HandlerRegistry handlers, Finisher finisher,
      Settings settings, BooleanSupplier quiet, Watchdog watchdog, StatsRecorder stats,
      OutageLog outages, FailoverResync resync) {
    this.id = id;
    this.broker = broker;
    this.handlers = handlers;
    this.finisher = finisher;
    this.settings = settings;
    this.quiet = quiet;
    this.watchdog = watchdog;
    this.stats = stats;
    this.outage = new RedisOutage(id, outages);
    this.resync = resync;
    this.seenMasterEpoch = resync.epoch();
  }

  String id() {
    return id;
  }

  /** True when this consumer's thread is lost in a handler that ignored its interruption. */
  boolean isStuck() {
    Watchdog.Slot s = slot;
    return s != null && s.isStuck();
  }

  @Override
  public void run() {
    slot = watchdog.register(id, Thread.currentThread());
    try {
      while (!quiet.getAsBoolean()) {
        List<RedisBroker.Claimed> batch;
        try {
          seenMasterEpoch = resync.between(id, seenMasterEpoch);
          batch = claim();
          outage.succeeded();
        } catch (JedisException e) {
          Thread.sleep(outage.failed(e));
          continue;
        }
        runBatch(batch);
      }
    } catch (InterruptedException e) {
      log.warn("{}: interrupted at shutdown; its jobs in hand stay in flight and are put back", id);
    } catch (RuntimeException e) {
      log.error("{}: stopped by an unexpected error; its jobs in hand are put back", id, e);
    }
  }

  private List<RedisBroker.Claimed> claim() {
    List<RedisBroker.Claimed> batch = broker.claimReady(id, settings.heartbeatTtlMs(), settings.prefetch());
    if (!batch.isEmpty()) {
      return batch;
    }
    return broker.claim(id, settings.pollSeconds(), settings.heartbeatTtlMs())
        .map(List::of).orElse(List.of());
  }

  /**
   * Runs a batch in claim order. Told to be quiet, it starts no further job of the batch and
   * gives the rest back, so a drain waits for one job per consumer, not for a whole prefetch.
   */
  private void runBatch(List<RedisBroker.Claimed> batch) throws InterruptedException {
    current = batch;
    for (int i = 0; i < batch.size(); i++) {
      nextUnstarted = i;
      if (quiet.getAsBoolean()) {
        releaseUnstarted();
        return;
      }
      RedisBroker.Claimed claimed = batch.get(i);
      nextUnstarted = i + 1;
      Outcome outcome = process(claimed);
      if (slot.isStuck()) {
        return;
      }
      if (outcome instanceof Outcome.Ack) {
        finisher.ackLater(id, claimed.id());
      } else if (outcome != null) {
        finisher.finish(id, claimed.id(), outcome);
      }
    }
    current = List.of();
  }

  /**
   * Gives back the jobs this consumer claimed but has not started; the worker calls it too
   * when it exits, for a consumer lost in a stuck handler or interrupted at the drain timeout.
   */
  void releaseUnstarted() {
    List<RedisBroker.Claimed> batch = current;
    List<RedisBroker.Claimed> rest = batch.subList(Math.min(nextUnstarted, batch.size()), batch.size());
    current = List.of();
    if (rest.isEmpty()) {
      return;
    }
    try {
      int n = broker.releaseClaimed(id, rest.stream().map(RedisBroker.Claimed::id).toList());
      log.info("{}: gave back {} claimed job(s) it had not started", id, n);
    } catch (JedisException e) {
      log.warn("{}: could not give back {} unstarted job(s) ({}); they are recovered as lost",
          id, rest.size(), e.getMessage());
    }
  }

  /** Runs one claimed job; returns what to do with it (null when there is nothing to do). */
  private Outcome process(RedisBroker.Claimed claimed) {
    String jobId = claimed.id();
    if (claimed.rawRecord() == null) {
      log.error("{}: job {} was in ready without a record (an invariant breach); dropped", id, LogText.escape(jobId));
      return null;
    }
    JobRecord job;
    try {
      job = JobRecord.parse(jobId, claimed.rawRecord());
    } catch (JobRecord.MalformedRecordException e) {
      log.error("{}: {}; dead-lettered", id, LogText.escape(e.getMessage()));
      stats.also("?", StatsRecorder.Event.DEAD);
      return new Outcome.DeadLetter("malformed record: " + e.getMessage());
    }
    Optional<JobHandler> handler = handlers.find(job.type());
    if (handler.isEmpty()) {
      String error = "no handler for job type '" + job.type() + "' in " + id
          + " (known: " + handlers.types() + ")";
      log.error("{}: job {}: {}; dead-lettered", id, LogText.escape(jobId), LogText.escape(error));
      stats.also(job.type(), StatsRecorder.Event.DEAD);
      return new Outcome.DeadLetter(error);
    }
    JobHandler h = handler.get();
    Duration limit = h.timeLimit().orElse(settings.jobTimeout());
    JobContext context = new JobContext(jobId, job.type(), job.payloadJson(), job.attempt(),
        job.maxAttempts(), Instant.ofEpochMilli(job.createdAt()), Instant.ofEpochMilli(job.dueAt()));
    long started = System.currentTimeMillis();
    stats.started(job.type(), started - job.dueAt());
    RunResult result = run(h, context, limit);
    Outcome outcome = Outcome.decide(job, result,
        h.retryPolicy().orElse(settings.retryPolicy()), ThreadLocalRandom.current().nextDouble());
    count(job.type(), result, outcome, System.currentTimeMillis() - started);
    logOutcome(jobId, job, outcome);
    return outcome;
  }

  private RunResult run(JobHandler h, JobContext context, Duration limit) {
    RunResult result;
    slot.begin(context.id(), limit.toNanos());
    boolean timedOut;
    try {
      JobResult r = h.handle(context);
      result = r != null ? new RunResult.Returned(r) : new RunResult.Threw(new IllegalStateException(
          h.getClass().getName() + ".handle returned null instead of a JobResult"));
    } catch (Throwable t) {
      result = new RunResult.Threw(t);
    } finally {
      timedOut = slot.end();
    }
    return timedOut && result instanceof RunResult.Threw ? new RunResult.TimedOut(limit) : result;
  }

  private void count(String type, RunResult result, Outcome outcome, long durationMs) {
    boolean succeeded = result instanceof RunResult.Returned;
    stats.finished(type, succeeded ? StatsRecorder.Event.SUCCEEDED : StatsRecorder.Event.FAILED, durationMs);
    if (outcome instanceof Outcome.Reschedule) {
      stats.also(type, StatsRecorder.Event.RESCHEDULED);
    } else if (outcome instanceof Outcome.Retry) {
      stats.also(type, StatsRecorder.Event.RETRIED);
    } else if (outcome instanceof Outcome.DeadLetter) {
      stats.also(type, StatsRecorder.Event.DEAD);
    }
  }

  private void logOutcome(String jobId, JobRecord job, Outcome outcome) {
    if (outcome instanceof Outcome.Retry r) {
      log.warn("{}: job {} {} failed, retry in {} ms: {}", id, LogText.escape(jobId), LogText.escape(job.type()),
          r.delay().toMillis(), LogText.escape(firstLine(r.error())));
    } else if (outcome instanceof Outcome.DeadLetter d) {
      log.error("{}: job {} {} dead-lettered: {}", id, LogText.escape(jobId), LogText.escape(job.type()),
          LogText.escape(firstLine(d.error())));
    }
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
