package dev.delayq.worker;

import dev.delayq.PayloadRules;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.job.RetryPolicy;
import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.LogText;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.WorkflowHead;
import dev.delayq.tracing.Tracing;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one claimed job on the calling consumer's thread: reads its record, finds its handler,
 * runs it under the {@link Watchdog}'s time limit and decides the {@link Outcome}. It never
 * throws: a failure outside the handler (its {@code timeLimit()} or {@code retryPolicy()}
 * throwing, a duration that overflows, an Error while reading the record) fails the attempt with
 * that reason, and the retry policy applies as for a failure of the handler itself.
 */
final class JobRunner {
  private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

  private final String queue;
  private final HandlerRegistry handlers;
  private final StatsRecorder stats;
  private final Duration defaultLimit;
  private final RetryPolicy defaultPolicy;
  private final java.util.function.Consumer<String> cancelledEnded;
  private final Tracing tracing;
  private final WorkflowEnd workflowEnd;
  /** The types this worker met without a handler: each is logged once, not once per job. */
  private final java.util.Set<String> missingTypes = java.util.concurrent.ConcurrentHashMap.newKeySet();

  JobRunner(HandlerRegistry handlers, StatsRecorder stats, Duration defaultLimit, RetryPolicy defaultPolicy) {
    this(handlers, stats, defaultLimit, defaultPolicy, "default", id -> { });
  }

  /**
   * A runner for the jobs of {@code queue} (the name its consumer spans carry); {@code cancelledEnded}
   * is told the id of each cancelled job once its handler has stopped.
   */
  JobRunner(HandlerRegistry handlers, StatsRecorder stats, Duration defaultLimit, RetryPolicy defaultPolicy,
      String queue, java.util.function.Consumer<String> cancelledEnded) {
    this(handlers, stats, defaultLimit, defaultPolicy, queue, cancelledEnded, Tracing.get());
  }

  /** As above, its consumer spans made by {@code tracing} ({@link Tracing#none()}: none, as for a {@link WarmUp}). */
  JobRunner(HandlerRegistry handlers, StatsRecorder stats, Duration defaultLimit, RetryPolicy defaultPolicy,
      String queue, java.util.function.Consumer<String> cancelledEnded, Tracing tracing) {
    this(handlers, stats, defaultLimit, defaultPolicy, queue, cancelledEnded, tracing,
        new WorkflowEnd(null, DelayqConfig.Queue.DEFAULT_MAX_RESULT_BYTES));
  }

  /** As above, a run's result and workflow ended by {@code workflowEnd}. */
  JobRunner(HandlerRegistry handlers, StatsRecorder stats, Duration defaultLimit, RetryPolicy defaultPolicy,
      String queue, java.util.function.Consumer<String> cancelledEnded, Tracing tracing, WorkflowEnd workflowEnd) {
    this.workflowEnd = workflowEnd;
    this.tracing = tracing;
    this.queue = queue;
    this.cancelledEnded = cancelledEnded;
    this.handlers = handlers;
    this.stats = stats;
    this.defaultLimit = defaultLimit;
    this.defaultPolicy = defaultPolicy;
  }

  /** Runs the job on the thread of {@code slot}'s consumer; returns what to do with it. */
  Outcome run(Watchdog.Slot slot, Claimed claimed) {
    String consumer = slot.consumer();
    String jobId = claimed.id();
    JobRecord job;
    if (claimed.tooLongBytes() > 0) {
      // never pulled from Redis: reading it is what could exhaust this worker's memory
      String error = "record of " + claimed.tooLongBytes() + " bytes is over the limit a worker reads ("
          + "queue.maxPayloadBytes + 64 KiB); not read";
      log.error("{}: job {}: {}; dead-lettered", consumer, LogText.escape(jobId), error);
      stats.also("?", StatsRecorder.Event.DEAD);
      return new Outcome.DeadLetter(error);
    }
    try {
      job = JobRecord.parse(jobId, claimed.rawRecord());
    } catch (JobRecord.MalformedRecordException e) {
      log.error("{}: {}; dead-lettered", consumer, LogText.escape(e.getMessage()));
      stats.also("?", StatsRecorder.Event.DEAD);
      return new Outcome.DeadLetter("malformed record: " + e.getMessage());
    } catch (RuntimeException | Error e) {
      // no stack trace: its message may quote the record, and only the escaped text may reach the log
      log.error("{}: job {}: its record could not be read; dead-lettered: {}", consumer, LogText.escape(jobId),
          LogText.escape(Outcome.describe(e)));
      stats.also("?", StatsRecorder.Event.DEAD);
      return new Outcome.DeadLetter("its record could not be read: " + Outcome.describe(e));
    }
    Optional<String> refused = PayloadRules.whyRefused(job.payloadJson());
    if (refused.isPresent()) {
      // a record written past enqueue's checks (another client): refused before any handler binds it
      String error = "payload refused: " + refused.get();
      log.error("{}: job {}: {}; dead-lettered", consumer, LogText.escape(jobId), LogText.escape(error));
      stats.also(job.type(), StatsRecorder.Event.DEAD);
      return new Outcome.DeadLetter(error);
    }
    Optional<JobHandler> handler = handlers.find(job.type());
    if (handler.isEmpty()) {
      // another worker may have it (a rolling deploy that adds a type, an in-app worker beside
      // supervised ones): the job is left to it, uncharged, never dead-lettered here
      if (missingTypes.add(job.type())) {
        log.warn("{}: no handler for job type '{}' here (known: {}); its jobs are left, uncharged, to a worker "
            + "that has one", consumer, LogText.escape(job.type()), LogText.escape(handlers.types()));
      }
      return new Outcome.NoHandler(job.type());
    }
    JobHandler h = handler.get();
    long started = System.currentTimeMillis();
    if (job.heldAt() > 0) {
      stats.startedAfterHold(job.type(), started - job.dueAt());
    } else {
      stats.started(job.type(), started - job.dueAt());
    }
    Outcome outcome;
    boolean succeeded;
    // the record's head looked at once: the context and the end both ask it
    boolean inWorkflow = WorkflowHead.inWorkflow(claimed.rawRecord());
    try {
      RunResult result = runHandler(slot, h, job, claimed.rawRecord(), inWorkflow);
      succeeded = result instanceof RunResult.Returned;
      double random = ThreadLocalRandom.current().nextDouble();
      outcome = workflowEnd.end(job, inWorkflow, result,
          Outcome.decide(job, result, policyOf(h), random), policyOf(h), random);
    } catch (RuntimeException | Error e) {
      // outside the handler's own run: its time limit, or turning what it returned into an outcome
      succeeded = false;
      outcome = Outcome.failed(job, "failed outside the handler: " + Outcome.describe(e),
          defaultPolicy, ThreadLocalRandom.current().nextDouble());
    }
    count(job.type(), succeeded, outcome, System.currentTimeMillis() - started);
    logOutcome(consumer, jobId, job, outcome);
    return outcome;
  }

  private RunResult runHandler(Watchdog.Slot slot, JobHandler h, JobRecord job, String rawRecord, boolean inWorkflow) {
    Duration limit = limitOf(h);
    JobContext context = workflowEnd.context(new JobContext(job.id(), job.type(), job.payloadJson(), job.attempt(),
        job.maxAttempts(), Instant.ofEpochMilli(job.createdAt()), Instant.ofEpochMilli(job.dueAt()),
        job.headers(), slot::isCancelled, job.tickAt() > 0 ? Instant.ofEpochMilli(job.tickAt()) : null), rawRecord, inWorkflow);
    Tracing.Run run = new Tracing.Run(queue, job.id(), job.type(), job.attempt(), job.headers());
    RunResult result;
    boolean timedOut;
    slot.begin(context.id(), saturatedNanos(limit));
    try {
      JobResult r = tracing.consume(run, () -> h.handle(context));
      result = r != null ? new RunResult.Returned(r) : new RunResult.Threw(new IllegalStateException(
          h.getClass().getName() + ".handle returned null instead of a JobResult"));
    } catch (Throwable t) {
      result = new RunResult.Threw(t);
    } finally {
      timedOut = slot.end();
    }
    if (slot.isCancelled()) {
      log.info("{}: job {} {} ended as cancelled", slot.consumer(), LogText.escape(job.id()), LogText.escape(job.type()));
      cancelledEnded.accept(job.id());
      return new RunResult.Cancelled();
    }
    return timedOut && result instanceof RunResult.Threw ? new RunResult.TimedOut(limit) : result;
  }

  private Duration limitOf(JobHandler h) {
    Optional<Duration> limit = h.timeLimit();
    if (limit == null || limit.isEmpty()) {
      return defaultLimit;
    }
    if (limit.get().isNegative() || limit.get().isZero()) {
      throw new IllegalArgumentException(h.getClass().getName() + ".timeLimit() is " + limit.get()
          + "; it must be longer than 0");
    }
    return limit.get();
  }

  /** The handler's own retry policy; the configured one when it has none or cannot say. */
  private RetryPolicy policyOf(JobHandler h) {
    try {
      Optional<RetryPolicy> own = h.retryPolicy();
      return own == null ? defaultPolicy : own.orElse(defaultPolicy);
    } catch (RuntimeException | Error e) {
      log.warn("{}.retryPolicy() threw; the configured retry policy applies: {}", h.getClass().getName(),
          LogText.escape(e.toString()));
      return defaultPolicy;
    }
  }

  /** A limit past what nanoseconds hold (about 292 years) is as good as none. */
  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE / 2;
    }
  }

  private void count(String type, boolean succeeded, Outcome outcome, long durationMs) {
    StatsRecorder.Event end = succeeded ? StatsRecorder.Event.SUCCEEDED
        : outcome instanceof Outcome.Ack a && a.cancelled() ? StatsRecorder.Event.CANCELLED
        : outcome instanceof Outcome.Complete c && c.cancelled() ? StatsRecorder.Event.CANCELLED
        : StatsRecorder.Event.FAILED;
    stats.finished(type, end, durationMs);
    if (outcome instanceof Outcome.Wait) {
      stats.also(type, StatsRecorder.Event.RATE_LIMITED);
    }
    if (outcome instanceof Outcome.Reschedule) {
      stats.also(type, StatsRecorder.Event.RESCHEDULED);
    } else if (outcome instanceof Outcome.Retry) {
      stats.also(type, StatsRecorder.Event.RETRIED);
    } else if (outcome instanceof Outcome.DeadLetter) {
      stats.also(type, StatsRecorder.Event.DEAD);
    }
  }

  private static void logOutcome(String consumer, String jobId, JobRecord job, Outcome outcome) {
    if (outcome instanceof Outcome.Retry r) {
      log.warn("{}: job {} {} failed, retry in {} ms: {}", consumer, LogText.escape(jobId),
          LogText.escape(job.type()), r.delayMs(), LogText.escape(firstLine(r.error())));
    } else if (outcome instanceof Outcome.DeadLetter d) {
      log.error("{}: job {} {} dead-lettered: {}", consumer, LogText.escape(jobId), LogText.escape(job.type()),
          LogText.escape(firstLine(d.error())));
    }
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
