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

  /** See {@link JobResult#done()}. */
  final class Done implements JobResult {
    private static final Done INSTANCE = new Done();

    private Done() {}

    @Override
    public String toString() {
      return "done";
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
