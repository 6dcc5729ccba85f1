package dev.delayq.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as operators write them: 250ms, 30s, 5m, 2h, 1d (or ISO-8601 such as PT30S). */
public final class Durations {
  private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private Durations() {}

  /** Parses a duration; throws IllegalArgumentException naming the text when it is not one. */
  public static Duration parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase();
    if (t.equals("0")) {
      return Duration.ZERO;
    }
    Matcher m = SHORT.matcher(t);
    if (m.matches()) {
      try {
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        };
      } catch (NumberFormatException | ArithmeticException e) {
        throw new IllegalArgumentException("'" + text + "' is too large a duration");
      }
    }
    if (t.startsWith("pt") || t.startsWith("p")) {
      try {
        return Duration.parse(t.toUpperCase());
      } catch (DateTimeParseException e) {
        // fall through to the common message
      }
    }
    throw new IllegalArgumentException(
        "'" + text + "' is not a duration (write it like 250ms, 30s, 5m, 2h or 1d)");
  }

  /** The shortest exact form: 1500ms, 30s, 5m. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 86_400_000 == 0 && ms != 0) return ms / 86_400_000 + "d";
    if (ms % 3_600_000 == 0 && ms != 0) return ms / 3_600_000 + "h";
    if (ms % 60_000 == 0 && ms != 0) return ms / 60_000 + "m";
    if (ms % 1000 == 0) return ms / 1000 + "s";
    return ms + "ms";
  }
}
