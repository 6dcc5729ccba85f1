package dev.delayq.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.delayq.process.LogText;
import java.time.Instant;

/** How times, ages and JSON look in the CLI's output. */
final class Formats {
  private static final ObjectMapper JSON = new ObjectMapper()
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private Formats() {}

  /** An instant in UTC, to the millisecond: 2026-12-01T02:00:00.250Z. */
  static String instant(long epochMs) {
    return Instant.ofEpochMilli(epochMs).toString();
  }

  /** A span for people: 850ms, 12.3s, 4m 05s, 2h 10m, 3d 4h. */
  static String span(long ms) {
    long a = Math.abs(ms);
    String sign = ms < 0 ? "-" : "";
    if (a < 1000) {
      return sign + a + "ms";
    }
    if (a < 60_000) {
      return sign + String.format("%.1fs", a / 1000.0);
    }
    if (a < 3_600_000) {
      return sign + String.format("%dm %02ds", a / 60_000, (a / 1000) % 60);
    }
    if (a < 86_400_000) {
      return sign + String.format("%dh %02dm", a / 3_600_000, (a / 60_000) % 60);
    }
    return sign + String.format("%dd %dh", a / 86_400_000, (a / 3_600_000) % 24);
  }

  /** "in 4m 05s" or "12.3s ago", relative to {@code nowMs}. */
  static String relative(long epochMs, long nowMs) {
    long d = epochMs - nowMs;
    return d >= 0 ? "in " + span(d) : span(-d) + " ago";
  }

  /** Cuts text to one line of at most {@code max} characters. */
  static String oneLine(String text, int max) {
    if (text == null) {
      return "-";
    }
    String line = LogText.escape(text.replaceAll("\\s*\\R\\s*", " "));
    return line.length() <= max ? line : line.substring(0, max - 1) + "…";
  }

  /** A JSON parse error in one line: Jackson's message without its source excerpt, plus the column. */
  static String jsonError(JsonProcessingException e) {
    String message = e.getOriginalMessage().replaceAll("\\s*\\(start marker at \\[Source:[^\\]]*\\]\\)", "")
        .replaceAll("\\s*\\R.*", "");
    return e.getLocation() == null ? message : message + " (column " + e.getLocation().getColumnNr() + ")";
  }

  static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON", e);
    }
  }
}
