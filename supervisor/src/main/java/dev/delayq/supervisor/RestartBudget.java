package dev.delayq.supervisor;

import java.time.Duration;
import java.util.ArrayDeque;

/**
 * OTP's restart intensity: at most {@code intensity} restarts within any sliding {@code period}
 * on the monotonic clock. One more means the child is crash-looping and must stay down.
 */
final class RestartBudget {
  private final int intensity;
  private final long periodNanos;
  private final ArrayDeque<Long> restarts = new ArrayDeque<>();

  RestartBudget(int intensity, Duration period) {
    if (intensity < 1 || period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("restart budget needs intensity >= 1 and a period > 0");
    }
    this.intensity = intensity;
    this.periodNanos = period.toNanos();
  }

  /** Counts a restart at {@code nowNanos}; false when that makes more than intensity in the period. */
  boolean tryRestart(long nowNanos) {
    while (!restarts.isEmpty() && nowNanos - restarts.peekFirst() >= periodNanos) {
      restarts.pollFirst();
    }
    restarts.addLast(nowNanos);
    return restarts.size() <= intensity;
  }

  /** Restarts counted in the period ending at {@code nowNanos}. */
  int used(long nowNanos) {
    return (int) restarts.stream().filter(t -> nowNanos - t < periodNanos).count();
  }

  int intensity() {
    return intensity;
  }

  Duration period() {
    return Duration.ofNanos(periodNanos);
  }

  void reset() {
    restarts.clear();
  }
}
