package dev.delayq.schedule;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Optional;

/**
 * When a schedule ticks: a cron expression in a time zone (five fields, minute first, as in
 * crontab; or six, second first, as in Spring) or a fixed interval. Cron expressions are parsed
 * and evaluated by cron-utils over java.time's {@link ZonedDateTime}, so time zones and their
 * daylight-saving changes are java.time's. An interval ticks at the multiples of itself since
 * the epoch ({@code every 30s}: at :00 and :30 of every minute), so every scheduler agrees on the
 * ticks without any shared start time.
 */
public sealed interface Cadence {
  Duration FINEST = Duration.ofSeconds(1);

  /** The first tick strictly after {@code after}; empty when there is none (a cron for a past year). */
  Optional<Instant> next(Instant after);

  /** How the CLI and the dashboard show it: "cron 0 9 * * * (Asia/Shanghai)", "every 30s". */
  String describe();

  /** A cron expression in a zone. */
  record Cron(String expression, ZoneId zone) implements Cadence {
    private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    private static final CronParser WITH_SECONDS =
        new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));
    /** Where the never-fires check starts looking: any instant does, for the fields hold no year. */
    private static final Instant NEVER_FIRES_PROBE = Instant.parse("2000-01-01T00:00:00Z");

    public Cron {
      if (expression == null || expression.isBlank()) {
        throw new IllegalArgumentException("the cron expression is empty");
      }
      expression = expression.trim().replaceAll("\\s+", " ");
      if (zone == null) {
        throw new IllegalArgumentException("a cron schedule needs a time zone");
      }
      if (executionTime(expression).nextExecution(NEVER_FIRES_PROBE.atZone(zone)).isEmpty()) {
        // No year field: a cron that matches no date after one instant matches none after any.
        throw new IllegalArgumentException("cron expression '" + expression + "' never fires: no date in the"
            + " calendar matches it (such as day 30 of February): give one that names a day that exists");
      }
    }

    private static ExecutionTime executionTime(String expression) {
      int fields = expression.split(" ").length;
      if (fields != 5 && fields != 6) {
        throw new IllegalArgumentException("cron expression '" + expression + "' has " + fields
            + " fields: give five (minute hour day-of-month month day-of-week) or six (second first)");
      }
      try {
        return ExecutionTime.forCron((fields == 5 ? UNIX : WITH_SECONDS).parse(expression));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("cron expression '" + expression + "' is not valid: " + e.getMessage());
      }
    }

    /**
     * The next tick. A wall-clock time that a spring-forward change skips (02:30 on the night
     * clocks go from 02:00 to 03:00) fires once, at the same instant it would have had, as
     * java.time places such a local time (03:30 of the new offset); cron-utils alone would drop
     * it for that day.
     */
    @Override
    public Optional<Instant> next(Instant after) {
      ExecutionTime et = executionTime(expression);
      Instant from = after.truncatedTo(ChronoUnit.SECONDS);
      Optional<Instant> next = et.nextExecution(from.atZone(zone)).map(ZonedDateTime::toInstant);
      ZoneRules rules = zone.getRules();
      for (ZoneOffsetTransition tr = rules.nextTransition(from);
          tr != null && (next.isEmpty() || tr.getInstant().isBefore(next.get()));
          tr = rules.nextTransition(tr.getInstant())) {
        if (!tr.isGap()) {
          continue;
        }
        Instant start = from.isAfter(tr.getInstant()) ? from : tr.getInstant().minusSeconds(1);
        Optional<ZonedDateTime> inOldOffset = et.nextExecution(start.atZone(tr.getOffsetBefore()));
        if (inOldOffset.isPresent() && inOldOffset.get().toLocalDateTime().isBefore(tr.getDateTimeAfter())) {
          Instant fire = ZonedDateTime.ofLocal(inOldOffset.get().toLocalDateTime(), zone, null).toInstant();
          if (fire.isAfter(after) && (next.isEmpty() || fire.isBefore(next.get()))) {
            return Optional.of(fire);
          }
        }
      }
      return next;
    }

    @Override
    public String describe() {
      return "cron " + expression + " (" + zone.getId() + ")";
    }
  }

  /** A fixed interval of whole seconds, at least one. */
  record Every(Duration interval) implements Cadence {
    public Every {
      if (interval != null && interval.compareTo(FINEST) >= 0) {
        try {
          // (an interval past the range of due times would never tick, or overflow a long of ms)
          dev.delayq.DueTime.delayMs(interval);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("--every: " + e.getMessage());
        }
      }
      if (interval == null || interval.compareTo(FINEST) < 0 || interval.toMillis() % 1000 != 0) {
        throw new IllegalArgumentException("--every must be a whole number of seconds, at least 1s, got "
            + interval);
      }
    }

    @Override
    public Optional<Instant> next(Instant after) {
      long step = interval.toMillis();
      long at = Math.floorDiv(after.toEpochMilli(), step) * step + step;
      return Optional.of(Instant.ofEpochMilli(at));
    }

    @Override
    public String describe() {
      return "every " + dev.delayq.config.Durations.format(interval);
    }
  }

  /** A zone by its id, e.g. Asia/Shanghai, with an error that names it. */
  public static ZoneId zone(String id) {
    try {
      return ZoneId.of(id);
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("--tz '" + id + "' is not a time zone: give an id such as "
          + "Asia/Shanghai, Europe/Berlin or UTC");
    }
  }
}
