package dev.delayq.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.regex.Pattern;

/**
 * A recurring schedule's definition, as kept in the queue's {@code schedules} hash: its id, when
 * it ticks, the job each tick enqueues (type, payload as JSON text, attempts), whether it is
 * paused, and what a tick missed while no scheduler ran becomes ({@link Missed}).
 */
public record Schedule(String id, Cadence cadence, String type, String payloadJson, int maxAttempts,
    boolean paused, Missed missed) {
  /** No '@': a tick's job id is {@code <schedule id>@<tick ms>}. */
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.:-]{1,100}");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What becomes of the ticks that fell while no scheduler ran (all were down, or stopped). */
  public enum Missed {
    /** They are dropped; the schedule goes on from its next tick. */
    SKIP,
    /** One job runs for them, for the latest missed tick, at once. */
    RUN_ONCE
  }

  public Schedule {
    if (id == null || !ID.matcher(id).matches()) {
      throw new IllegalArgumentException("schedule id '" + id
          + "' is not valid: use 1 to 100 of the characters A-Z a-z 0-9 _ . : -");
    }
    if (cadence == null) {
      throw new IllegalArgumentException("schedule " + id + " needs --cron or --every");
    }
    if (maxAttempts < 1 || maxAttempts > 1000) {
      throw new IllegalArgumentException("maxAttempts must be between 1 and 1000, got " + maxAttempts);
    }
    missed = missed == null ? Missed.SKIP : missed;
  }

  public Schedule paused(boolean p) {
    return new Schedule(id, cadence, type, payloadJson, maxAttempts, p, missed);
  }

  /** The job id of the tick at {@code tickMs}. */
  public String tickJobId(long tickMs) {
    return id + "@" + tickMs;
  }

  /** The definition as stored: one JSON object, the payload kept as its text. */
  public String toJson() {
    ObjectNode o = JSON.createObjectNode().put("id", id);
    if (cadence instanceof Cadence.Cron c) {
      o.put("cron", c.expression()).put("tz", c.zone().getId());
    } else if (cadence instanceof Cadence.Every e) {
      o.put("everyMs", e.interval().toMillis());
    } else {
      throw new IllegalStateException("unknown cadence " + cadence);
    }
    o.put("type", type).put("payload", payloadJson).put("maxAttempts", maxAttempts).put("paused", paused)
        .put("missed", missed.name());
    return o.toString();
  }

  /** Reads a stored definition; IllegalArgumentException naming what is wrong. */
  public static Schedule fromJson(String text) {
    JsonNode o;
    try {
      o = JSON.readTree(text);
    } catch (IOException e) {
      throw new IllegalArgumentException("schedule definition is not JSON: " + e.getMessage());
    }
    if (o == null || !o.isObject()) {
      throw new IllegalArgumentException("schedule definition is not a JSON object");
    }
    Cadence cadence = o.hasNonNull("cron")
        ? new Cadence.Cron(o.get("cron").asText(), ZoneId.of(o.path("tz").asText("UTC")))
        : new Cadence.Every(Duration.ofMillis(o.path("everyMs").asLong()));
    return new Schedule(o.path("id").asText(null), cadence, o.path("type").asText(null),
        o.path("payload").asText("{}"), o.path("maxAttempts").asInt(1), o.path("paused").asBoolean(false),
        Missed.valueOf(o.path("missed").asText("SKIP")));
  }
}
