package dev.delayq.supervisor.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayq.config.Durations;
import dev.delayq.process.LogText;
import dev.delayq.redis.Admin;
import dev.delayq.redis.Resumed;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard's actions (POST): resize the workers, restart a child, retry or purge dead jobs,
 * pause or resume the queue or one job type.
 * Resize and restart go to the supervisor's event queue, the path {@code reload} takes; the dead
 * jobs' actions are {@link Admin}'s scripts. Each action is logged with what it did.
 */
final class ActionApi {
  private static final Logger log = LoggerFactory.getLogger(ActionApi.class);

  private final Steering steering;
  private final Admin admin;

  ActionApi(Steering steering, Admin admin) {
    this.steering = steering;
    this.admin = admin;
  }

  /** {@code {"workers": N}}; the supervisor refuses N above worker.maxProcesses (400). */
  ObjectNode resize(JsonNode body) {
    JsonNode n = body.get("workers");
    if (n == null || !n.canConvertToInt() || !n.isIntegralNumber() || n.asInt() < 0) {
      throw new Http.Failure(400, "workers must be a whole number from 0 to worker.maxProcesses, got " + n);
    }
    String summary = Http.await(steering.resize(n.asInt()));
    log.info("web: resize to {} workers: {}", n.asInt(), summary);
    return Http.ok().put("message", summary);
  }

  ObjectNode restart(String child) {
    String summary = Http.await(steering.restart(child));
    log.info("web: restart {}: {}", LogText.escape(child), summary);
    return Http.ok().put("message", summary);
  }

  ObjectNode retry(String id) {
    try {
      if (!admin.retryDead(id)) {
        throw new Http.Failure(404, "job " + id + " is not dead");
      }
    } catch (IllegalStateException e) {
      throw new Http.Failure(409, e.getMessage());
    }
    log.info("web: dead job {} retried", LogText.escape(id));
    return Http.ok().put("message", "job " + id + " is back on ready");
  }

  ObjectNode retryAll() {
    int n = admin.retryAllDead();
    log.info("web: {} dead job(s) retried", n);
    return Http.ok().put("retried", n).put("message", n + " dead job(s) back on ready");
  }

  /** {@code {"olderThan": "1h"}}, or an empty body for every dead job. */
  ObjectNode purge(JsonNode body) {
    Duration olderThan = null;
    JsonNode d = body.get("olderThan");
    if (d != null && !d.isNull() && !d.asText().isBlank()) {
      try {
        olderThan = Durations.parse(d.asText().trim());
      } catch (IllegalArgumentException e) {
        throw new Http.Failure(400, "olderThan: " + e.getMessage());
      }
    }
    int n = admin.purgeDead(olderThan);
    log.info("web: {} dead job(s) purged{}", n, olderThan == null ? "" : " (older than " + Durations.format(olderThan) + ")");
    return Http.ok().put("purged", n).put("message", n + " dead job(s) purged");
  }

  /** {@code {"scope": "*"}} for the whole queue, or a job type. */
  ObjectNode pause(JsonNode body) {
    String scope = scope(body);
    boolean now;
    try {
      now = admin.pause(scope);
    } catch (IllegalArgumentException e) {
      throw new Http.Failure(400, "scope: " + e.getMessage());
    } catch (dev.delayq.redis.ShardsNotDoneException e) {
      throw notOnEveryShard(e);
    }
    log.info("web: paused {}{}", shown(scope), now ? "" : " (it was already)");
    return Http.ok().put("paused", scope).put("message", (now ? "paused " : "already paused: ") + shown(scope));
  }

  /** {@code {"scope": "*"}} or a job type: the jobs held meanwhile go back to ready. */
  ObjectNode resume(JsonNode body) {
    String scope = scope(body);
    Resumed r;
    try {
      r = admin.resume(scope);
    } catch (IllegalArgumentException e) {
      throw new Http.Failure(400, "scope: " + e.getMessage());
    } catch (dev.delayq.redis.ShardsNotDoneException e) {
      throw notOnEveryShard(e);
    }
    log.info("web: resumed {}: {} held job(s) back to ready", shown(scope), r.givenBack());
    return Http.ok().put("resumed", scope).put("givenBack", r.givenBack())
        .put("message", (r.wasPaused() ? "resumed " : "was not paused: ") + shown(scope) + "; "
            + r.givenBack() + " held job(s) back to ready");
  }

  /** A sharded queue's pause or resume that some shards did not take: 503, naming them (the same call again finishes it). */
  private static Http.Failure notOnEveryShard(dev.delayq.redis.ShardsNotDoneException e) {
    log.warn("web: {}", LogText.escape(e.getMessage()));
    return new Http.Failure(503, e.getMessage());
  }

  private static String scope(JsonNode body) {
    JsonNode s = body.get("scope");
    if (s == null || !s.isTextual()) {
      throw new Http.Failure(400, "scope must be \"*\" (the whole queue) or a job type, got " + s);
    }
    return s.asText();
  }

  private static String shown(String scope) {
    return Admin.WHOLE_QUEUE.equals(scope) ? "the whole queue" : "type " + LogText.escape(scope);
  }
}
