package dev.delayq.supervisor;

import java.time.Duration;

/**
 * The wait before a crashed child is started again: {@code min}, doubling after each restart up
 * to {@code max}, back to {@code min} once the child has run healthily for a while
 * (Kubernetes CrashLoopBackOff). Never under one second, as daemontools taught.
 */
final class Backoff {
  private final Duration min;
  private final Duration max;
  private Duration next;

  Backoff(Duration min, Duration max) {
    if (min.compareTo(Duration.ofSeconds(1)) < 0 || max.compareTo(min) < 0) {
      throw new IllegalArgumentException("backoff needs 1s <= min <= max, got " + min + " and " + max);
    }
    this.min = min;
    this.max = max;
    this.next = min;
  }

  /** The wait before this restart; the one after will be twice as long, up to max. */
  Duration next() {
    Duration now = next;
    Duration doubled = next.multipliedBy(2);
    next = doubled.compareTo(max) > 0 ? max : doubled;
    return now;
  }

  /** The wait the next restart would get, without using it. */
  Duration peek() {
    return next;
  }

  void reset() {
    next = min;
  }
}
