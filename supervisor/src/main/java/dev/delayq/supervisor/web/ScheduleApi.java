package dev.delayq.supervisor.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayq.DelayQueue;
import dev.delayq.Schedules;
import dev.delayq.config.Durations;
import dev.delayq.process.LogText;
import dev.delayq.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard's recurring schedules: {@code GET /api/schedules} lists them with their next
 * ticks (one whose stored definition cannot be read as {@code {"id", "broken": reason}}); {@code POST /api/schedules} upserts one; {@code POST /api/schedules/<id>/pause|resume|run|remove}
 * acts on one. Each change is logged with what it did.
 */
final class ScheduleApi {
  private static final Logger log = LoggerFactory.getLogger(ScheduleApi.class);

  private final DelayQueue queue;
  private final int defaultMaxAttempts;

  ScheduleApi(DelayQueue queue, int defaultMaxAttempts) {
    this.queue = queue;
    this.defaultMaxAttempts = defaultMaxAttempts;
  }

  ObjectNode list() {
    ObjectNode out = Http.ok();
    ArrayNode rows = out.putArray("schedules");
    Schedules.Listing all = queue.schedules().listing();
    for (Schedules.View v : all.schedules()) {
      row(rows.addObject(), v);
    }
    for (Schedules.Broken b : all.broken()) {
      // a definition that cannot be read is shown, marked, instead of failing the others' list
      rows.addObject().put("id", b.id()).put("broken", b.reason()).putArray("nextTicks");
    }
    return out;
  }

  /**
   * {@code {"id", "cron"+"tz" | "every", "type", "payload": "<JSON text>", "missed": "skip"|"run-once",
   * "maxAttempts", "paused"}}.
   */
  ObjectNode upsert(JsonNode b) {
    String cron = text(b, "cron");
    String every = text(b, "every");
    Duration interval = null;
    if (every != null) {
      try {
        interval = Durations.parse(every);
      } catch (IllegalArgumentException e) {
        throw new Http.Failure(400, "every: " + e.getMessage());
      }
    }
    String missed = Optional.ofNullable(text(b, "missed")).orElse("skip");
    Schedule.Missed policy = switch (missed) {
      case "skip" -> Schedule.Missed.SKIP;
      case "run-once" -> Schedule.Missed.RUN_ONCE;
      default -> throw new Http.Failure(400, "missed must be skip or run-once, got '" + missed + "'");
    };
    Schedule s = new Schedule(text(b, "id"), Schedules.cadence(cron, text(b, "tz"), interval), text(b, "type"),
        Optional.ofNullable(text(b, "payload")).orElse("{}"), b.path("maxAttempts").asInt(defaultMaxAttempts),
        b.path("paused").asBoolean(false), policy);
    Schedules.View v = queue.schedules().upsert(s);
    log.info("web: schedule {} saved: {}", LogText.escape(s.id()), s.cadence().describe());
    ObjectNode out = Http.ok().put("message", "schedule " + s.id() + " saved");
    row(out.putObject("schedule"), v);
    return out;
  }

  ObjectNode act(String id, String action) {
    Schedules schedules = queue.schedules();
    String message = switch (action) {
      case "pause" -> schedules.pause(id).map(v -> "schedule " + id + " paused").orElse(null);
      case "resume" -> schedules.resume(id).map(v -> "schedule " + id + " resumed").orElse(null);
      case "remove" -> schedules.remove(id) ? "schedule " + id + " removed" : null;
      case "run" -> schedules.runNow(queue, id).map(r -> "schedule " + id + ": job " + r.id() + " enqueued now")
          .orElse(null);
      default -> throw new Http.Failure(404, "no action '" + action + "' on a schedule (pause, resume, run, remove)");
    };
    if (message == null) {
      throw new Http.Failure(404, "no schedule with id " + id);
    }
    log.info("web: {}", LogText.escape(message));
    return Http.ok().put("message", message);
  }

  private static void row(ObjectNode o, Schedules.View v) {
    Schedule s = v.schedule();
    o.put("id", s.id()).put("cadence", s.cadence().describe()).put("type", s.type()).put("payload", s.payloadJson())
        .put("maxAttempts", s.maxAttempts()).put("paused", s.paused())
        .put("missed", s.missed() == Schedule.Missed.SKIP ? "skip" : "run-once");
    ArrayNode next = o.putArray("nextTicks");
    for (Instant t : v.nextTicks()) {
      next.add(t.toEpochMilli());
    }
    if (v.lastTick() != null) {
      o.put("lastTick", v.lastTick().toEpochMilli());
    }
  }

  private static String text(JsonNode b, String field) {
    JsonNode n = b.get(field);
    return n == null || n.isNull() || n.asText().isBlank() ? null : n.asText().trim();
  }
}
