package dev.delayq.job;

import java.time.Duration;
import java.util.Objects;

/** What a handler says about the job it ran: finished, or to run again later. */
public sealed interface JobResult permits JobResult.Done, JobResult.RescheduleIn {

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
    }
  }
}
