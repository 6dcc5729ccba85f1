package dev.delayq.job;

import dev.delayq.DueTime;
import java.time.Duration;

/**
 * Exponential backoff between attempts: {@code baseDelay * 2^(attempt-1)}, at most
 * {@code maxDelay}, spread by +/- {@code jitter} (a fraction) so failed jobs don't return
 * all at once.
 */
public record RetryPolicy(Duration baseDelay, Duration maxDelay, double jitter) {

  public RetryPolicy {
    if (baseDelay == null || baseDelay.isNegative() || baseDelay.isZero()) {
      throw new IllegalArgumentException("baseDelay must be longer than 0, got " + baseDelay);
    }
    if (maxDelay == null || maxDelay.compareTo(baseDelay) < 0) {
      throw new IllegalArgumentException("maxDelay must be at least baseDelay, got " + maxDelay);
    }
    try {
      DueTime.delayMs(maxDelay);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("maxDelay: " + e.getMessage());
    }
    if (!(jitter >= 0 && jitter < 1)) {
      throw new IllegalArgumentException("jitter must be in [0, 1), got " + jitter);
    }
  }

  /** 2 s doubling, at most 1 h, +/- 20 %: the defaults of conf/delayq.yml. */
  public static RetryPolicy defaults() {
    return new RetryPolicy(Duration.ofSeconds(2), Duration.ofHours(1), 0.2);
  }

  /**
   * The wait after failed attempt {@code attempt} (1-based). {@code random} is a number in
   * [0, 1) chosen by the caller, so the result is a pure function of its inputs.
   */
  public Duration backoff(int attempt, double random) {
    int doublings = Math.max(0, Math.min(attempt - 1, 40));
    double base = Math.min(baseDelay.toMillis() * Math.pow(2, doublings), maxDelay.toMillis());
    double spread = base * jitter * (2 * random - 1);
    return Duration.ofMillis(Math.max(0, Math.round(base + spread)));
  }
}
