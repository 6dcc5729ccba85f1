package dev.delayq.config;

import dev.delayq.config.DelayqConfig.Retry;
import java.time.Duration;

/**
 * What one queue sets apart from the rest (the {@code queues:} section, by queue name): its
 * retry policy, key by key over {@code retry}, and its job time limit. A key left out (null)
 * keeps the global value. {@link DelayqConfig#forQueue} applies it.
 */
public record QueueSettings(RetryOverride retry, Duration jobTimeout) {
  public QueueSettings {
    retry = retry == null ? new RetryOverride(null, null, null, null) : retry;
    if (jobTimeout != null) {
      Check.positive("jobTimeout", jobTimeout);
    }
  }

  /** The keys of {@link Retry} one queue overrides; null keeps the global value. */
  public record RetryOverride(Integer maxAttempts, Duration baseDelay, Duration maxDelay, Double jitter) {
    public RetryOverride {
      Retry global = new Retry(1, Duration.ofSeconds(1), Duration.ofSeconds(1), 0);
      over(global, maxAttempts, baseDelay, maxDelay, jitter);  // checks each key given
    }

    Retry over(Retry global) {
      return over(global, maxAttempts, baseDelay, maxDelay, jitter);
    }

    private static Retry over(Retry g, Integer maxAttempts, Duration baseDelay, Duration maxDelay, Double jitter) {
      return new Retry(maxAttempts == null ? g.maxAttempts() : maxAttempts, baseDelay == null ? g.baseDelay() : baseDelay,
          maxDelay == null ? g.maxDelay() : maxDelay, jitter == null ? g.jitter() : jitter);
    }
  }
}
