package dev.delayq.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.delayq.DelayQueue;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Keys;
import dev.delayq.redisserver.RedisServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * The backlog sampler of `bench precision` on a real Redis: jobs due but not forwarded (no
 * scheduler runs here) are counted where they wait, in the time wheel of every shard.
 */
class BacklogSamplerTest {
  @Test
  void dueJobsLeftInTheTimeWheelOfEveryShardAreCountedAsOverdue() throws Exception {
    try (RedisServer server = RedisServer.start(); RedisClient redis = server.client()) {
      DelayqConfig config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", server.url(),
          "DELAYQ_QUEUE", "backlog", "DELAYQ_QUEUE_SHARDS", "2"));
      try (DelayQueue queue = DelayQueue.connect(config)) {
        for (int i = 0; i < 30; i++) {
          queue.delay("bench_probe", Map.of("n", i), Duration.ofMillis(1));
        }
      }
      Thread.sleep(50); // all due by now, and nobody forwards them
      BacklogSampler sampler = BacklogSampler.start(redis, Keys.of(config));
      Thread.sleep(100);
      Map<String, Object> backlog = sampler.summary();
      assertEquals(30L, backlog.get("overdue_in_delayed_max"), "every due job, summed over the shards");
      assertEquals(30.0, backlog.get("overdue_in_delayed_mean"));
      assertEquals(0L, backlog.get("ready_max"));
    }
  }
}
