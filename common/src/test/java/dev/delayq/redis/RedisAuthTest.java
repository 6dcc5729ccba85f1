package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Redis URLs with a password or an ACL user, against a private redis-server that requires
 * them: what DELAYQ_REDIS_URL accepts reaches the server, and a wrong secret is refused.
 */
class RedisAuthTest {
  @TempDir
  static Path dir;
  private static Process server;
  private static int port;

  @BeforeAll
  static void startServerWithPasswordAndAclUser() throws Exception {
    port = RedisFixture.freePort();
    server = new ProcessBuilder(RedisBinary.locate().toString(), "--port", Integer.toString(port),
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
        "--requirepass", "s3cret")
        .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (UnifiedJedis admin = open("redis://:s3cret@127.0.0.1:" + port)) {
        admin.ping();
        admin.sendCommand(() -> "ACL".getBytes(), "SETUSER", "app", "on", ">app-pass", "~*", "&*", "+@all");
        return;
      } catch (JedisException notYet) {
        if (System.nanoTime() > deadline) {
          throw notYet;
        }
        Thread.sleep(20);
      }
    }
  }

  @AfterAll
  static void stopServer() {
    server.destroyForcibly();
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
  void redactedUrlHidesThePassword() {
    assertEquals("redis://app:***@host:6379", RedisConnector.redact("redis://app:app-pass@host:6379"));
  }
}
