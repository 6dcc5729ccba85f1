package dev.delayq.spring;

import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisTime;
import dev.delayq.worker.Worker;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the actuator health indicators of both starters report, Boot-free: Redis reachable (a
 * failed read is DOWN), the backlog (ready jobs, delayed ones already due), the oldest overdue job
 * (how long past its due time the oldest waiting job is: a stopped scheduler or too few workers
 * show here first), the depths, and whether the in-app worker stopped claiming after a failure.
 */
public final class DelayqHealthCheck {
  /** One reading: {@code up} false when the in-app worker stopped after a failure. */
  public record Reading(boolean up, Map<String, Object> details) {}

  private final DelayqConfig config;
  private final RedisConnection redis;
  private final Keys keys;
  private final Inspector inspector;
  private final Supplier<Worker.Failure> workerFailure;

  DelayqHealthCheck(DelayqConfig config, RedisConnection redis, Supplier<Worker.Failure> workerFailure) {
    this.config = config;
    this.redis = redis;
    this.keys = Keys.of(config);
    this.inspector = new Inspector(redis.client(), keys);
    this.workerFailure = workerFailure;
  }

  /** Reads Redis; throws what Jedis throws when it cannot (the indicator says DOWN with it). */
  public Reading read() {
    Inspector.Depths d = inspector.depths();
    long now = RedisTime.nowMs(redis.client(), keys.jobs());
    // a sharded queue's backlog and oldest job may be in any of its shards: read over all of them
    Inspector.Backlog backlog = inspector.backlog(now);
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("redis", redis.describe());
    details.put("queue", config.queue().name());
    details.put("backlog", backlog.jobs());
    details.put("oldestOverdueMs", backlog.overdueMs(now));
    details.put("delayed", d.delayed());
    details.put("ready", d.ready());
    details.put("inFlight", d.inFlight());
    details.put("dead", d.dead());
    Worker.Failure failure = workerFailure.get();
    if (failure != null) {
      details.put("worker", "stopped claiming: " + failure);
    }
    return new Reading(failure == null, details);
  }
}
