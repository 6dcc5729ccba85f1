package dev.delayq.testing;

import dev.delayq.redisserver.RedisServer;
import dev.delayq.redisserver.TestCa;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnector;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import redis.clients.jedis.UnifiedJedis;

/**
 * The real Redis every test talks to: a {@code redis-server} started once per test JVM on a
 * free loopback port (PATH binary, else the one embedded-redis ships), or the server named by
 * {@code DELAYQ_TEST_REDIS_URL}. Tests isolate themselves with a fresh queue name each.
 */
public final class RedisFixture {
  private static RedisFixture shared;

  private final String url;
  private final UnifiedJedis redis;

  private RedisFixture(String url) {
    this.url = url;
    this.redis = RedisConnector.open(url, "delayq-test", 64, Duration.ofSeconds(2), Duration.ofSeconds(10));
  }

  /** The JVM-wide server, started on first use and stopped when the JVM exits. */
  public static synchronized RedisFixture get() {
    if (shared == null) {
      String external = System.getenv("DELAYQ_TEST_REDIS_URL");
      shared = new RedisFixture(external != null && !external.isBlank() ? external : startServer());
    }
    return shared;
  }

  public String url() {
    return url;
  }

  public UnifiedJedis redis() {
    return redis;
  }

  /** A queue name no other test uses. */
  public static String freshQueue() {
    return "test-" + UUID.randomUUID().toString().substring(0, 8);
  }

  public static Keys freshKeys() {
    return new Keys("delayq", freshQueue());
  }

  public RedisBroker broker(Keys keys) {
    RedisBroker broker = new RedisBroker(redis, keys);
    broker.loadScripts();
    return broker;
  }

  private static String startServer() {
    return RedisServer.start().url();
  }

  public static int freePort() throws IOException {
    return RedisServer.freePort();
  }
}
