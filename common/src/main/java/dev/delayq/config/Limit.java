package dev.delayq.config;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One entry of {@code queue.limits}: how fast and how many at once jobs of {@code type} may start,
 * across every worker on every host. {@code rate} is {@code N/PERIOD} ("100/1s", "50/1m"),
 * counted per value of the payload field {@code key} when set (e.g. one window per merchant id);
 * {@code concurrency} is the most running at once (0 or absent: no cap). The claim scripts
 * enforce both (include/flow.lua).
 */
public record Limit(String type, String rate, String key, Integer concurrency) {
  private static final Pattern RATE = Pattern.compile("\\s*(\\d{1,9})\\s*/\\s*(\\S+)\\s*");
  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_]{1,64}");

  public Limit {
    if (!JobTypes.isValid(type)) {
      throw new IllegalArgumentException("type: '" + type + "' is not a job type ([a-z0-9_.:-], 1 to 64)");
    }
    rate = rate == null ? "" : rate.trim();
    key = key == null ? "" : key.trim();
    concurrency = concurrency == null ? 0 : concurrency;
    if (concurrency < 0 || concurrency > 100_000) {
      throw new IllegalArgumentException("concurrency: " + concurrency + " for type " + type
          + " must be between 0 (no cap) and 100000");
    }
    if (!rate.isEmpty()) {
      Matcher m = RATE.matcher(rate);
      if (!m.matches() || Integer.parseInt(m.group(1)) < 1) {
        throw new IllegalArgumentException("rate: '" + rate + "' for type " + type
            + " is not N/PERIOD with N >= 1 (e.g. 100/1s, 50/1m)");
      }
      Duration period;
      try {
        period = Durations.parse(m.group(2));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("rate: '" + rate + "' for type " + type + ": " + e.getMessage());
      }
      if (period.toMillis() < 1 || period.compareTo(Duration.ofDays(1)) > 0) {
        throw new IllegalArgumentException("rate: '" + rate + "' for type " + type
            + ": the period must be between 1ms and 1d");
      }
    } else if (!key.isEmpty()) {
      throw new IllegalArgumentException("key: '" + key + "' for type " + type + " is set without a rate");
    }
    if (!key.isEmpty() && !KEY.matcher(key).matches()) {
      throw new IllegalArgumentException("key: '" + key + "' for type " + type
          + " is not a payload field name ([A-Za-z0-9_], 1 to 64)");
    }
    if (rate.isEmpty() && concurrency == 0) {
      throw new IllegalArgumentException("rate: type " + type + " has neither a rate nor a concurrency");
    }
  }

  /** Starts allowed per period; 0 when there is no rate. */
  public int rateCount() {
    return rate.isEmpty() ? 0 : Integer.parseInt(RATE.matcher(rate).replaceAll("$1"));
  }

  /** The rate's period in ms; 0 when there is no rate. */
  public long periodMs() {
    if (rate.isEmpty()) {
      return 0;
    }
    Matcher m = RATE.matcher(rate);
    m.matches();
    return Durations.parse(m.group(2)).toMillis();
  }

  /** The limits as include/flow.lua reads them: '<type> <rate> <periodMs> <key or -> <cap>' a line. */
  public static String spec(List<Limit> limits) {
    StringBuilder s = new StringBuilder();
    for (Limit l : limits) {
      s.append(l.type).append(' ').append(l.rateCount()).append(' ').append(l.periodMs()).append(' ')
          .append(l.key.isEmpty() ? "-" : l.key).append(' ').append(l.concurrency).append('\n');
    }
    return s.toString();
  }
}
