package dev.delayq.config;

import java.time.Duration;

/** Value checks for the config records; each message starts with the key it is about. */
final class Check {
  private Check() {}

  static void present(String key, Object value) {
    if (value == null) {
      throw new IllegalArgumentException(key + ": missing");
    }
  }

  static void atLeast(String key, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(key + ": must be at least " + min + ", got " + value);
    }
  }

  static void between(String key, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          key + ": must be between " + min + " and " + max + ", got " + value);
    }
  }

  static void port(String key, int value) {
    between(key, value, 1, 65535);
  }

  static void positive(String key, Duration value) {
    present(key, value);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(key + ": must be longer than 0, got " + Durations.format(value));
    }
  }

  static void notNegative(String key, Duration value) {
    present(key, value);
    if (value.isNegative()) {
      throw new IllegalArgumentException(key + ": must not be negative, got " + Durations.format(value));
    }
  }

  static void atLeastDuration(String key, Duration value, Duration min) {
    present(key, value);
    if (value.compareTo(min) < 0) {
      throw new IllegalArgumentException(key + ": must be at least " + Durations.format(min)
          + ", got " + Durations.format(value));
    }
  }

  static void matches(String key, String value, String regex) {
    if (value == null || !value.matches(regex)) {
      throw new IllegalArgumentException(key + ": '" + value + "' does not match " + regex);
    }
  }
}
