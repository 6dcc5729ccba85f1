package dev.delayq.job;

import java.time.Duration;
import java.util.Optional;

/**
 * Runs the jobs of one type. Implementations are found with {@link java.util.ServiceLoader}
 * (list the class in {@code META-INF/services/dev.delayq.job.JobHandler}) on the worker's
 * classpath and in every jar of its {@code jobs/} directory: adding a type is adding a jar.
 *
 * <p>Threading: one instance serves all consumer threads of a worker process, so
 * {@link #handle} may run concurrently and must be thread-safe.
 *
 * <p>Delivery is at least once: a job runs again when its attempt failed; when its worker died,
 * stalled or was cut off while its handler ran (that job alone is charged an attempt); or when
 * its worker died between the handler's end and the acknowledgement (uncharged). A job never
 * runs again for another job's crash. Make handlers idempotent, and use
 * {@link JobContext#attempt()} to tell a retry.
 */
public interface JobHandler {

  /** The job type this handler runs, matching {@code [a-z0-9_.:-]{1,64}}. */
  String type();

  /**
   * Runs one job. Return {@link JobResult#done()} when it is finished, or
   * {@link JobResult#rescheduleIn(Duration)} to run it again later. A thrown exception is a
   * failure: the job is retried with backoff, and dead-lettered after its last attempt with the
   * exception kept as its last error. The thread is interrupted when the time limit passes.
   */
  JobResult handle(JobContext context) throws Exception;

  /** This type's time limit; empty means the worker's {@code worker.jobTimeout}. */
  default Optional<Duration> timeLimit() {
    return Optional.empty();
  }

  /** This type's retry backoff; empty means the configured {@code retry} section. */
  default Optional<RetryPolicy> retryPolicy() {
    return Optional.empty();
  }
}
