package dev.delayq.testing;

import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBinary;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import redis.clients.jedis.JedisPooled;

/**
 * The real Redis every test talks to: a {@code redis-server} started once per test JVM on a
 * free loopback port (PATH binary, else the one embedded-redis ships), or the server named by
 * {@code DELAYQ_TEST_REDIS_URL}. Tests isolate themselves with a fresh queue name each.
 */
public final class RedisFixture {
  private static RedisFixture shared;

  private final String url;
  private final JedisPooled redis;

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

  public JedisPooled redis() {
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
    broker.scripts().loadAll();
    return broker;
  }

  private static String startServer() {
    try {
      int port = freePort();
      Path dir = Files.createTempDirectory("delayq-test-redis");
      Process p = new ProcessBuilder(RedisBinary.locate().toString(), "--port", Integer.toString(port),
          "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
          "--maxmemory-policy", "noeviction")
          .redirectErrorStream(true)
          .redirectOutput(dir.resolve("redis.log").toFile())
          .start();
      Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
      String url = "redis://127.0.0.1:" + port;
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (true) {
        try (JedisPooled probe = new JedisPooled("127.0.0.1", port)) {
          probe.ping();
          return url;
        } catch (RuntimeException notYet) {
          if (!p.isAlive() || System.nanoTime() > deadline) {
            throw new IllegalStateException("test redis-server did not start on port " + port
                + "; see " + dir.resolve("redis.log"), notYet);
          }
          Thread.sleep(20);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }
}
