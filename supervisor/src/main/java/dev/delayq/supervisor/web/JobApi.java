package dev.delayq.supervisor.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayq.ChangeResult;
import dev.delayq.DelayQueue;
import dev.delayq.DueTime;
import dev.delayq.config.Durations;
import dev.delayq.process.LogText;
import dev.delayq.redis.Admin;
import dev.delayq.redis.JobBrowser;
import dev.delayq.redis.JobRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard's job browser: bounded pages of the jobs that have not started
 * ({@code GET /api/jobs}), and the actions on one of them ({@code POST /api/jobs/<id>/<action>}):
 * promote (run now), reschedule, edit its payload, cancel. Each is one script through the
 * producer API; a refusal (running, dead, unknown) is a 409 or 404 with the reason, and each
 * action is logged with what it did.
 */
final class JobApi {
  private static final Logger log = LoggerFactory.getLogger(JobApi.class);
  /** Bytes of its payload one job's detail view carries (a list carries its previews). */
  static final int DETAIL_PAYLOAD_BYTES = 64 * 1024;

  private final DelayQueue queue;
  private final JobBrowser browser;
  private final Admin admin;

  JobApi(DelayQueue queue, JobBrowser browser, Admin admin) {
    this.queue = queue;
    this.browser = browser;
    this.admin = admin;
  }

  /**
   * {@code GET /api/jobs?state=delayed|ready|inflight&within=MINUTES&type=T&prefix=P&limit=N&offset=K}:
   * one bounded page of jobs (delayed: due from now to now + within, or at any time without
   * within; ready: the next to run first; inflight: claimed, consumer by consumer, with the
   * consumer and whether its handler runs), payloads cut to a preview in Redis (each with the
   * payload's size), and the offset of the next page (-1: no more). {@code id=X} instead finds that
   * one job, its payload cut to {@value #DETAIL_PAYLOAD_BYTES} bytes.
   */
  ObjectNode list(Map<String, String> q) {
    String id = q.get("id");
    if (id != null && !id.isBlank()) {
      return one(id.trim());
    }
    String state = q.getOrDefault("state", "delayed");
    JobBrowser.Query query = new JobBrowser.Query(q.get("type"), q.get("prefix"),
        Http.intParam(q, "limit", 50, 1, 1000), Http.intParam(q, "offset", 0, 0, Integer.MAX_VALUE));
    long now = admin.redisNowMs();
    JobBrowser.Page page = switch (state) {
      case "delayed" -> {
        int within = Http.intParam(q, "within", 0, 0, 525_600);
        yield browser.delayed(0, within == 0 ? Long.MAX_VALUE : now + within * 60_000L, query);
      }
      case "ready" -> browser.ready(query);
      case "inflight" -> browser.inFlight(query);
      default -> throw new Http.Failure(400, "state must be delayed, ready or inflight, got '" + state + "'");
    };
    ObjectNode out = Http.ok().put("nowMs", now).put("state", state).put("nextOffset", page.nextOffset());
    ArrayNode rows = out.putArray("jobs");
    for (JobBrowser.Row r : page.rows()) {
      ObjectNode o = rows.addObject().put("id", r.id()).put("type", r.type()).put("dueAt", r.dueAt())
          .put("attempt", r.attempt()).put("maxAttempts", r.maxAttempts()).put("lastError", r.lastError())
          .put("state", r.consumer() != null ? "IN_FLIGHT" : state.toUpperCase(Locale.ROOT));
      if (r.consumer() != null) {
        o.put("consumer", r.consumer()).put("running", r.running());
      }
      preview(o, r.payloadJson(), r.payloadBytes(), r.payloadCut());
    }
    return out;
  }

  /**
   * The one job with this id, in the shape of a page (empty when Redis knows nothing of it). Its
   * record is read whole (one at a time per request thread: at most the largest payload enqueue
   * accepts), and the answer carries at most {@value #DETAIL_PAYLOAD_BYTES} bytes of its payload.
   */
  private ObjectNode one(String id) {
    ObjectNode out = Http.ok().put("nowMs", admin.redisNowMs()).put("state", "id").put("nextOffset", -1);
    ArrayNode rows = out.putArray("jobs");
    admin.inspect(id).ifPresent(j -> {
      ObjectNode o = rows.addObject().put("id", j.id()).put("type", j.type()).put("dueAt", j.dueAt())
          .put("attempt", j.attempt()).put("maxAttempts", j.maxAttempts()).put("lastError", j.lastError())
          .put("state", j.state().name()).put("consumer", j.consumer());
      String raw = j.rawRecord();
      String payload = raw == null ? null : JobRecord.payloadOf(raw);
      detail(o, payload == null ? raw : payload);
      // what the dashboard's Inspect shows besides the row: the record's head and how it ended
      String head = raw == null ? null : JobRecord.headOf(raw);
      o.put("recordHead", head == null || head.length() <= DETAIL_PAYLOAD_BYTES ? head
          : head.substring(0, DETAIL_PAYLOAD_BYTES) + "…");
      if (j.ended() != null) {
        o.put("ended", j.ended().outcome()).put("endedAt", j.ended().endedAt()).put("idFreeAt", j.ended().freeAt());
      } else if (j.result() != null) {
        o.put("ended", j.result().outcome()).put("endedAt", j.result().endedAt());
      }
      if (j.waiting() != null) {
        o.set("waitingFor", Http.JSON.valueToTree(j.waiting().waitsFor()));
        o.put("waitingSince", j.waiting().sinceMs()).put("delayMs", j.waiting().delayMs())
            .put("ifDependencyFails", j.waiting().ifDependencyFails());
      }
      if (j.result() != null) {
        // the result JSON as the worker kept it, as text: the page shows it, never evaluates it
        o.put("result", j.result().json());
      }
    });
    return out;
  }

  /** A row's payload: the preview Redis cut, marked when cut, and the size of the whole. */
  static void preview(ObjectNode o, String preview, long payloadBytes, boolean cut) {
    o.put("payload", cut ? preview + "…" : preview);
    o.put("payloadTruncated", cut);
    o.put("payloadBytes", payloadBytes);
  }

  /** One job's whole payload, cut to {@value #DETAIL_PAYLOAD_BYTES} bytes for the answer. */
  private static void detail(ObjectNode o, String payload) {
    if (payload == null) {
      preview(o, null, 0, false);
      return;
    }
    byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= DETAIL_PAYLOAD_BYTES) {
      preview(o, payload, bytes.length, false);
      return;
    }
    // back to the start of a character (UTF-8 continuation bytes are 10xxxxxx)
    int end = DETAIL_PAYLOAD_BYTES;
    while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
      end--;
    }
    preview(o, new String(bytes, 0, end, StandardCharsets.UTF_8), bytes.length, true);
  }

  ObjectNode act(String id, String action, JsonNode body) {
    ChangeResult r = switch (action) {
      case "promote" -> queue.promote(id);
      case "reschedule" -> reschedule(id, body);
      case "edit" -> queue.editPayload(id, payloadText(body));
      case "cancel" -> {
        DelayQueue.Cancel c = queue.cancelEvenIfRunning(id);
        switch (c) {
          case DEAD -> throw new Http.Failure(409, "job " + id + " is dead: it cannot be cancelled (purge it)");
          case UNKNOWN -> throw new Http.Failure(404, ChangeResult.noSuchJob(id));
          default -> log.info("web: job {} {}", LogText.escape(id), c == DelayQueue.Cancel.CANCELLED ? "cancelled"
              : "is running: its worker was told to interrupt it");
        }
        yield null;
      }
      default -> throw new Http.Failure(404, "no action '" + action + "' on a job (promote, reschedule, edit, cancel)");
    };
    if (r == null) {
      return Http.ok().put("message", "job " + id + " cancelled (a running one is interrupted by its worker)");
    }
    if (!r.changed()) {
      throw new Http.Failure(r.status() == ChangeResult.Status.UNKNOWN ? 404 : 409, r.describe());
    }
    log.info("web: job {} {}: {}", LogText.escape(id), action, LogText.escape(r.describe()));
    ObjectNode out = Http.ok().put("message", r.describe()).put("state", r.status().name());
    return r.dueAt() == null ? out : out.put("dueAt", r.dueAt().toEpochMilli());
  }

  /** {@code {"delay": "10m"}} or {@code {"at": "2026-12-01T10:00:00+08:00"}}. */
  private ChangeResult reschedule(String id, JsonNode body) {
    JsonNode delay = body.get("delay");
    JsonNode at = body.get("at");
    if ((delay == null || delay.isNull()) == (at == null || at.isNull())) {
      throw new Http.Failure(400, "give either delay (e.g. \"10m\") or at (an ISO-8601 instant), not "
          + (delay == null || delay.isNull() ? "neither" : "both"));
    }
    if (delay != null && !delay.isNull()) {
      try {
        return queue.reschedule(id, Durations.parse(delay.asText().trim()));
      } catch (IllegalArgumentException e) {
        throw new Http.Failure(400, "delay: " + e.getMessage());
      }
    }
    Instant when = instant(at.asText().trim());
    try {
      return queue.reschedule(id, when);
    } catch (IllegalArgumentException e) {
      throw new Http.Failure(400, "at: " + e.getMessage());
    }
  }

  private static Instant instant(String text) {
    try {
      return DueTime.parse("at", text);
    } catch (IllegalArgumentException e) {
      throw new Http.Failure(400, e.getMessage());
    }
  }

  /**
   * {@code {"payload": "<JSON text>"}}: the text as the operator typed it, so its numbers are kept
   * exactly (a parsed JSON value would pass through doubles).
   */
  private static String payloadText(JsonNode body) {
    JsonNode p = body.get("payload");
    if (p == null || !p.isTextual()) {
      throw new Http.Failure(400, "payload must be the new payload's JSON text, as a string");
    }
    return p.asText();
  }
}
