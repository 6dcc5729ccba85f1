package dev.delayq.worker;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.RetryPolicy;
import dev.delayq.process.RedisOutage;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A Consumer is one thread of a worker: it claims a due job into its own in-flight list
 * (BLMOVE, so a crash at any moment leaves the job recoverable), runs its handler through
 * the {@link JobRunner}, and hands the outcome to the {@link Finisher}. It stops claiming when
 * told to be quiet, after finishing the job in hand.
 */
final class Consumer implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(Consumer.class);

  /** The settings a consumer runs by. */
  record Settings(double pollSeconds, long heartbeatTtlMs, Duration jobTimeout, Duration grace,
      RetryPolicy retryPolicy) {}

  private final String id;
  private final RedisBroker broker;
  private final HandlerRegistry handlers;
  private final Finisher finisher;
  private final Settings settings;
  private final BooleanSupplier quiet;
  private final Runnable onStuck;
  private final RedisOutage outage;

  Consumer(String id, RedisBroker broker, HandlerRegistry handlers, Finisher finisher,
      Settings settings, BooleanSupplier quiet, Runnable onStuck) {
    this.id = id;
    this.broker = broker;
    this.handlers = handlers;
    this.finisher = finisher;
    this.settings = settings;
    this.quiet = quiet;
    this.onStuck = onStuck;
    this.outage = new RedisOutage(id);
  }

  String id() {
    return id;
  }

  @Override
  public void run() {
    try (JobRunner runner = new JobRunner(id + "/runner")) {
      while (!quiet.getAsBoolean()) {
        Optional<RedisBroker.Claimed> claimed;
        try {
          claimed = broker.claim(id, settings.pollSeconds(), settings.heartbeatTtlMs());
          outage.succeeded();
        } catch (JedisException e) {
          Thread.sleep(outage.failed(e));
          continue;
        }
        if (claimed.isPresent() && !process(claimed.get(), runner)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      log.warn("{}: interrupted at shutdown; its job in hand stays in flight and is recovered", id);
    } catch (RuntimeException e) {
      log.error("{}: stopped by an unexpected error; its job in hand is recovered", id, e);
    }
  }

  /** Runs one claimed job to its outcome; false when the handler is stuck and this thread lost. */
  private boolean process(RedisBroker.Claimed claimed, JobRunner runner) throws InterruptedException {
    String jobId = claimed.id();
    if (claimed.rawRecord() == null) {
      log.error("{}: job {} was in ready without a record (an invariant breach); dropped", id, jobId);
      return true;
    }
    JobRecord job;
    try {
      job = JobRecord.parse(jobId, claimed.rawRecord());
    } catch (JobRecord.MalformedRecordException e) {
      log.error("{}: {}; dead-lettered", id, e.getMessage());
      finisher.finish(id, jobId, new Outcome.DeadLetter("malformed record: " + e.getMessage()));
      return true;
    }
    Optional<JobHandler> handler = handlers.find(job.type());
    if (handler.isEmpty()) {
      String error = "no handler for job type '" + job.type() + "' in " + id
          + " (known: " + handlers.types() + ")";
      log.error("{}: job {}: {}; dead-lettered", id, jobId, error);
      finisher.finish(id, jobId, new Outcome.DeadLetter(error));
      return true;
    }
    JobHandler h = handler.get();
    Duration limit = h.timeLimit().orElse(settings.jobTimeout());
    JobContext context = new JobContext(jobId, job.type(), job.payloadJson(), job.attempt(),
        job.maxAttempts(), Instant.ofEpochMilli(job.createdAt()), Instant.ofEpochMilli(job.dueAt()));
    if (log.isDebugEnabled()) {
      log.debug("{}: job {} {} started {} ms after due", id, jobId, job.type(),
          System.currentTimeMillis() - job.dueAt());
    }
    RunResult result = runner.run(h, context, limit, settings.grace());
    if (result instanceof RunResult.Stuck stuck) {
      log.error("{}: job {} {} ignored its interruption at the {} ms time limit for {} ms more; "
          + "this worker exits so it can be replaced, and the job is recovered", id, jobId,
          job.type(), stuck.limit().toMillis(), stuck.grace().toMillis());
      onStuck.run();
      return false;
    }
    Outcome outcome = Outcome.decide(job, result,
        h.retryPolicy().orElse(settings.retryPolicy()), ThreadLocalRandom.current().nextDouble());
    logOutcome(jobId, job, outcome);
    finisher.finish(id, jobId, outcome);
    return true;
  }

  private void logOutcome(String jobId, JobRecord job, Outcome outcome) {
    if (outcome instanceof Outcome.Retry r) {
      log.warn("{}: job {} {} failed, retry in {} ms: {}", id, jobId, job.type(),
          r.delay().toMillis(), firstLine(r.error()));
    } else if (outcome instanceof Outcome.DeadLetter d) {
      log.error("{}: job {} {} dead-lettered: {}", id, jobId, job.type(), firstLine(d.error()));
    }
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
