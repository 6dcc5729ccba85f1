package dev.delayq.spring;

import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.DelayedReads;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisTime;
import dev.delayq.worker.Worker;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import redis.clients.jedis.resps.Tuple;

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
    DelayedReads delayed = new DelayedReads(redis.client());
    long dueDelayed = 0;
    long oldestDue = Long.MAX_VALUE;
    // a sharded queue's backlog and oldest job may be in any of its shards
    for (Keys shard : keys.allShards()) {
      dueDelayed += delayed.count(shard, "-inf", Long.toString(now));
      Tuple first = delayed.first(shard, Long.toString(now));
      if (first != null) {
        oldestDue = Math.min(oldestDue, (long) first.getScore());
      }
      oldestDue = Math.min(oldestDue, nextReadyDue(shard));
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("redis", redis.describe());
    details.put("queue", config.queue().name());
    details.put("backlog", d.ready() + dueDelayed);
    details.put("oldestOverdueMs", oldestDue == Long.MAX_VALUE ? 0 : Math.max(0, now - oldestDue));
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

  /** The due time of the job a shard's consumers take next, or Long.MAX_VALUE for none. */
  private long nextReadyDue(Keys shard) {
    String nextReady = redis.client().lindex(shard.ready(), -1);
    String raw = nextReady == null ? null : redis.client().hget(shard.jobs(), nextReady);
    if (raw == null) {
      return Long.MAX_VALUE;
    }
    try {
      return JobRecord.parse(nextReady, raw).dueAt();
    } catch (JobRecord.MalformedRecordException e) {
      return Long.MAX_VALUE; // the worker dead-letters it; it says nothing about lateness
    }
  }
}
