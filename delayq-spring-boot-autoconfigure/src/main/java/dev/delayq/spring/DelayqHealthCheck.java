package dev.delayq.spring;

import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisTime;
import dev.delayq.worker.Worker;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the actuator health indicators of both starters report, Boot-free: Redis reachable (a
 * failed read is DOWN), the backlog (ready jobs, delayed ones already due), the oldest overdue job
 * (how long past its due time the oldest waiting job is: a stopped scheduler or too few workers
 * show here first), the depths, and whether the in-app worker stopped claiming after a failure.
 *
 * <p>A job overdue by more than {@code delayq.health.max-overdue} makes it DOWN, not
 * OUT_OF_SERVICE: nobody took the queue out of service on purpose; its jobs are late, which is a
 * failure someone must act on (start workers, the scheduler, or more of them). Boot's liveness
 * and readiness groups leave this indicator out unless the app adds it, so DOWN here restarts
 * nothing by itself.
 */
public final class DelayqHealthCheck {
  /** One reading: {@code up} false when the in-app worker stopped after a failure. */
  public record Reading(boolean up, Map<String, Object> details) {}

  private final DelayqConfig config;
  private final RedisConnection redis;
  private final Keys keys;
  private final Inspector inspector;
  private final Supplier<Worker.Failure> workerFailure;
  private final Duration maxOverdue;

  /** {@code maxOverdue}: DOWN past it; zero: never for lateness. */
  DelayqHealthCheck(DelayqConfig config, RedisConnection redis, Supplier<Worker.Failure> workerFailure,
      Duration maxOverdue) {
    this.maxOverdue = maxOverdue;
    this.config = config;
    this.redis = redis;
    this.keys = Keys.of(config);
    this.inspector = new Inspector(redis.client(), keys);
    this.workerFailure = workerFailure;
  }

  /** Reads Redis; throws what Jedis throws when it cannot (the indicator says DOWN with it). */
  public Reading read() {
    Inspector.Depths d;
    long now;
    Inspector.Backlog backlog;
    try {
      d = inspector.depths();
      now = RedisTime.nowMs(redis.client(), keys.jobs());
      // a sharded queue's backlog and oldest job may be in any of its shards: read over all of them
      backlog = inspector.backlog(now);
    } catch (RuntimeException e) {
      throw redis.explained(e); // a refused password says where the password goes
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("redis", redis.describe());
    details.put("queue", config.queue().name());
    details.put("backlog", backlog.jobs());
    details.put("oldestOverdueMs", backlog.overdueMs(now));
    details.put("delayed", d.delayed());
    details.put("ready", d.ready());
    details.put("inFlight", d.inFlight());
    details.put("dead", d.dead());
    long overdueMs = backlog.overdueMs(now);
    boolean late = !maxOverdue.isZero() && overdueMs > maxOverdue.toMillis();
    if (!maxOverdue.isZero()) {
      details.put("maxOverdueMs", maxOverdue.toMillis());
    }
    if (late) {
      details.put("overdue", "the oldest due job of queue " + config.queue().name() + " has waited "
          + seconds(overdueMs) + " past its due time, more than delayq.health.max-overdue (" + seconds(maxOverdue.toMillis())
          + "): no worker serves the queue, or too few, or the scheduler is not running");
    }
    Worker.Failure failure = workerFailure.get();
    if (failure != null) {
      details.put("worker", "stopped claiming: " + failure);
    }
    return new Reading(failure == null && !late, details);
  }

  private static String seconds(long ms) {
    return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
  }
}
