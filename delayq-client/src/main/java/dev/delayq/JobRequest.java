package dev.delayq;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One job of a batch enqueue: type, payload, and either a delay or a due instant, within the
 * range of due times ({@link DueTime}: refused here, before anything is sent).
 */
public record JobRequest(String type, Object payload, Duration delay, Instant at, JobOptions options) {

  public JobRequest {
    if ((delay == null) == (at == null)) {
      throw new IllegalArgumentException("give a job either a delay or a due time, not "
          + (delay == null ? "neither" : "both"));
    }
    if (delay != null) {
      DueTime.delayMs(delay);
    } else {
      DueTime.atMs(at);
    }
    options = Objects.requireNonNullElse(options, JobOptions.defaults());
  }

  public static JobRequest delay(String type, Object payload, Duration delay) {
    return new JobRequest(type, payload, delay, null, null);
  }

  public static JobRequest at(String type, Object payload, Instant at) {
    return new JobRequest(type, payload, null, at, null);
  }

  public JobRequest with(JobOptions newOptions) {
    return new JobRequest(type, payload, delay, at, newOptions);
  }
}
