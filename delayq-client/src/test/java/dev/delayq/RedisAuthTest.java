package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.RedisAuthException;
import dev.delayq.redis.RedisConnector;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redisserver.RedisServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Redis URLs with a password or an ACL user, against a private redis-server that requires
 * them: what DELAYQ_REDIS_URL accepts reaches the server, and a wrong secret is refused.
 */
class RedisAuthTest {
  private static RedisServer server;
  private static int port;

  @BeforeAll
  static void startServerWithPasswordAndAclUser() {
    server = RedisServer.start("--requirepass", "s3cret");
    port = server.port();
    try (UnifiedJedis admin = open("redis://:s3cret@127.0.0.1:" + port)) {
      admin.sendCommand(() -> "ACL".getBytes(), "SETUSER", "app", "on", ">app-pass", "~*", "&*", "+@all");
    }
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  private static UnifiedJedis open(String url) {
    return RedisConnector.open(url, "auth-test", 2, Duration.ofSeconds(1), Duration.ofSeconds(2));
  }

  @Test
  void passwordInTheUrlIsUsed() {
    try (UnifiedJedis redis = open("redis://:s3cret@127.0.0.1:" + port)) {
      assertEquals("PONG", redis.ping());
    }
  }

  @Test
  void aclUserAndPasswordInTheUrlAreUsed() {
    try (UnifiedJedis redis = open("redis://app:app-pass@127.0.0.1:" + port)) {
      assertEquals("PONG", redis.ping());
      Object whoami = redis.sendCommand(() -> "ACL".getBytes(), "WHOAMI");
      assertEquals("app", new String((byte[]) whoami));
    }
  }

  @Test
  void wrongPasswordIsRefused() {
    try (UnifiedJedis redis = open("redis://app:wrong@127.0.0.1:" + port)) {
      assertThrows(JedisException.class, redis::ping);
    }
  }

  @Test
  void producerConnectsThroughTheConfiguredUrl() {
    DelayqConfig config = new ConfigLoader().load(null, Map.of(
        "DELAYQ_REDIS_URL", "redis://app:app-pass@127.0.0.1:" + port, "DELAYQ_QUEUE", "auth"));
    try (DelayQueue queue = DelayQueue.connect(config)) {
      assertTrue(queue.delay("noop", "{}", Duration.ofMinutes(1)).accepted());
    }
  }

  @Test
  void aProducerWithoutThePasswordIsToldWhereThePasswordGoes() {
    DelayqConfig config = new ConfigLoader().load(null, Map.of(
        "DELAYQ_REDIS_URL", "redis://127.0.0.1:" + port, "DELAYQ_QUEUE", "auth"));

    RuntimeException e = assertThrows(RuntimeException.class, () -> DelayQueue.connect(config));

    assertEquals(RedisAuthException.class, e.getClass(), "a delayq exception, not Jedis's: " + e);
    assertTrue(e.getMessage().startsWith("Redis at 127.0.0.1:" + port + " asks for a password"), e.getMessage());
    assertTrue(e.getMessage().contains("NOAUTH"), e.getMessage());
    assertTrue(e.getMessage().contains("DELAYQ_REDIS_URL"), e.getMessage());
    assertTrue(e.getMessage().contains("run/redis.password"), e.getMessage());
  }

  @Test
  void aProducerWithAWrongPasswordIsToldWhereThePasswordGoesWithoutSeeingIt() {
    DelayqConfig config = new ConfigLoader().load(null, Map.of(
        "DELAYQ_REDIS_URL", "redis://app:not-the-pass@127.0.0.1:" + port, "DELAYQ_QUEUE", "auth"));

    RuntimeException e = assertThrows(RuntimeException.class, () -> DelayQueue.connect(config));

    assertEquals(RedisAuthException.class, e.getClass(), "a delayq exception, not Jedis's: " + e);
    assertTrue(e.getMessage().contains("refused the password"), e.getMessage());
    assertTrue(e.getMessage().contains("WRONGPASS"), e.getMessage());
    assertTrue(e.getMessage().contains("DELAYQ_REDIS_URL") && e.getMessage().contains("run/redis.password"),
        e.getMessage());
    assertTrue(!e.getMessage().contains("not-the-pass"), "never the password: " + e.getMessage());
  }

  @Test
  void redactedUrlHidesThePassword() {
    assertEquals("redis://app:***@host:6379", RedisConnector.redact("redis://app:app-pass@host:6379"));
  }
}
