package dev.delayq.e2e.handlers;

import dev.delayq.job.JobContext;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/** Writes one line per handler start to the Redis list the payload names ("log"). */
final class Recorder {
  private static volatile UnifiedJedis redis;

  private Recorder() {}

  static void record(JobContext ctx) {
    String log = ctx.payload().path("log").asText();
    if (log.isEmpty()) {
      return;
    }
    long now = System.currentTimeMillis();
    redis().rpush(log, ctx.id() + "," + ctx.attempt() + "," + now + "," + ctx.dueAt().toEpochMilli()
        + "," + ProcessHandle.current().pid());
  }

  /** Pushes a value onto a Redis list (nothing when the list's name is empty). */
  static void push(String list, String value) {
    if (!list.isEmpty()) {
      redis().rpush(list, value);
    }
  }

  /** Increments and returns a counter. */
  static long count(String key) {
    return redis().incr(key);
  }

  private static UnifiedJedis redis() {
    if (redis == null) {
      synchronized (Recorder.class) {
        if (redis == null) {
          redis = RedisClient.create(java.net.URI.create(System.getenv("DELAYQ_REDIS_URL")));
        }
      }
    }
    return redis;
  }
}
