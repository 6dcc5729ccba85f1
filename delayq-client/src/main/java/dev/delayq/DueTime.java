package dev.delayq;

import dev.delayq.config.Durations;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * The range of a job's due time, from the epoch to {@link #LATEST}, which every door that sets
 * one applies (the producer API, the CLI, the dashboard, a handler's reschedule, the retry
 * policy, schedules): a due time outside it is bad input, refused with an
 * IllegalArgumentException that names the limit and the value.
 *
 * <p>Why this cap: it is far beyond any business delay, and every due time up to it is held
 * exactly by everything that carries one. The time wheel orders its buckets by the text
 * {@code string.format('%016d', due + 5e15)} (include/wheel.lua): up to the cap that is 16
 * digits ({@code 5253402300799999}), so text order stays time order (from about the year
 * 160,000 on it would take 17 digits and sort before every real bucket, stalling the wheel). Lua
 * numbers are doubles, exact to 2^53 (9.0e15): {@code due + 5e15} stays below it. {@link Instant}
 * and a long of ms hold far more. The wheel keeps the same bound (WHEEL_LATEST, held equal by a
 * test) and dead-letters
 * a record outside it that an older version or a hand-made write left in Redis.
 */
public final class DueTime {
  /** The latest due time, in epoch ms: 9999-12-31T23:59:59.999Z (the 16-digit cap above). */
  public static final long LATEST_MS = 253_402_300_799_999L;

  /** {@link #LATEST_MS} as an instant. */
  public static final Instant LATEST = Instant.ofEpochMilli(LATEST_MS);

  /** The range as error messages state it. */
  public static final String RANGE = "due times run from the epoch (1970-01-01T00:00:00Z) to " + LATEST;

  private static final long DAY_MS = 86_400_000L;

  private DueTime() {}

  /** The epoch ms of {@code at}, refused (naming the range) when it is outside it. */
  public static long atMs(Instant at) {
    if (at.isBefore(Instant.EPOCH) || at.isAfter(LATEST)) {
      throw new IllegalArgumentException("due time " + at + " is out of range: " + RANGE);
    }
    return at.toEpochMilli();
  }

  /**
   * A due time as an operator types it (the CLI's --at, a job line's "at", the dashboard's
   * reschedule): ISO-8601 with an offset, or an instant in UTC. {@code what} names the input in
   * the IllegalArgumentException that refuses anything else.
   */
  public static Instant parse(String what, String text) {
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      try {
        return Instant.parse(text);
      } catch (DateTimeParseException e2) {
        throw new IllegalArgumentException(what + " '" + text + "' is not an ISO-8601 instant with an offset, "
            + "e.g. 2026-12-01T10:00:00+08:00 or 2026-12-01T02:00:00Z");
      }
    }
  }

  /** As {@link #delayMs(Duration, long)} from this host's clock. */
  public static long delayMs(Duration delay) {
    return delayMs(delay, System.currentTimeMillis());
  }

  /**
   * The ms of {@code delay}, refused when it is negative or would be due after {@link #LATEST}
   * counted from {@code nowMs} (the Redis server's clock counts the delay, within seconds of
   * this one: a margin nothing near the cap of years notices). Never overflows: a delay too long
   * for a long of ms is refused like any other past the cap.
   */
  public static long delayMs(Duration delay, long nowMs) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative, got " + text(delay));
    }
    long longest = LATEST_MS - Math.max(0, nowMs);
    if (delay.compareTo(Duration.ofMillis(longest)) > 0) {
      throw new IllegalArgumentException("delay " + text(delay) + " is too long: " + RANGE
          + ", so a delay from now is at most " + longest / DAY_MS + "d");
    }
    return delay.toMillis();
  }

  /** The delay as an operator wrote it (30s, 5m), or in seconds when too long for that. */
  private static String text(Duration delay) {
    if (delay.isNegative()) {
      return delay.toString();
    }
    try {
      return Durations.format(delay);
    } catch (ArithmeticException tooLongForMs) {
      return delay.getSeconds() + "s";
    }
  }
}
