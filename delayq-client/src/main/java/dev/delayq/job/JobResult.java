package dev.delayq.job;

import dev.delayq.DueTime;
import java.time.Duration;
import java.util.Objects;

/** What a handler says about the job it ran: finished, or to run again later. */
public sealed interface JobResult permits JobResult.Done, JobResult.RescheduleIn, JobResult.RateLimited {

  /** The job is finished; it is acknowledged and forgotten. */
  static JobResult done() {
    return Done.INSTANCE;
  }

  /**
   * The job is finished with a small result: {@code value} is written as JSON (Jackson), kept with
   * the id for queue.idRetention (24 h when that is 0), readable by id ({@code queue.result(id)},
   * {@code bin/delayq inspect}) and by the jobs that waited for this one
   * ({@link JobContext#resultOf}). A result over queue.maxResultBytes fails the attempt, saying so.
   */
  static JobResult done(Object value) {
    return value == null ? Done.INSTANCE : new Done(value);
  }

  /**
   * Run the same job (same id and payload) again after {@code delay}, e.g. to poll a payment
   * provider after 30 s, 2 min, 10 min. Its attempt count starts again at 1.
   */
  static JobResult rescheduleIn(Duration delay) {
    return new RescheduleIn(delay);
  }

  /**
   * The downstream said "too many requests": run the same job again after {@code retryIn}
   * without burning an attempt (its attempt count and last error stay as they are), e.g. for an
   * HTTP 429 with Retry-After.
   */
  static JobResult rateLimited(Duration retryIn) {
    return new RateLimited(retryIn);
  }

  /** See {@link JobResult#done()} and {@link JobResult#done(Object)}. */
  final class Done implements JobResult {
    private static final Done INSTANCE = new Done(null);

    private final Object value;

    private Done(Object value) {
      this.value = value;
    }

    /** The result the handler ended with, if any. */
    public java.util.Optional<Object> value() {
      return java.util.Optional.ofNullable(value);
    }

    @Override
    public String toString() {
      return value == null ? "done" : "done with a result";
    }
  }

  /** See {@link JobResult#rescheduleIn(Duration)}. */
  record RescheduleIn(Duration delay) implements JobResult {
    public RescheduleIn {
      Objects.requireNonNull(delay, "delay");
      if (delay.isNegative()) {
        throw new IllegalArgumentException("reschedule delay must not be negative, got " + delay);
      }
      DueTime.delayMs(delay);
    }
  }

  /** See {@link JobResult#rateLimited(Duration)}. */
  record RateLimited(Duration retryIn) implements JobResult {
    public RateLimited {
      Objects.requireNonNull(retryIn, "retryIn");
      if (retryIn.isNegative()) {
        throw new IllegalArgumentException("rate-limited retry delay must not be negative, got " + retryIn);
      }
      DueTime.delayMs(retryIn);
    }
  }
}
