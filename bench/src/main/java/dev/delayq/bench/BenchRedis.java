package dev.delayq.bench;

import dev.delayq.redis.RedisBinary;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.ServerCheck;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis a benchmark runs against: by default a private redis-server started for the run
 * (no persistence, like the anchors' Redis) and stopped after, so a benchmark never touches
 * user data; or the server at --redis.
 */
final class BenchRedis implements AutoCloseable {
  private final String url;
  private final Process server;
  private final UnifiedJedis redis;

  private BenchRedis(String url, Process server) {
    this.url = url;
    this.server = server;
    this.redis = RedisConnector.open(url, "delayq-bench", 64, Duration.ofSeconds(2), Duration.ofSeconds(30));
  }

  static BenchRedis start(String externalUrl) throws IOException, InterruptedException {
    if (externalUrl != null) {
      return new BenchRedis(externalUrl, null);
    }
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path dir = Files.createTempDirectory("delayq-bench-redis");
    Process p = new ProcessBuilder(RedisBinary.locate().toString(), "--port", Integer.toString(port),
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
        "--maxmemory-policy", "noeviction")
        .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
    String url = "redis://127.0.0.1:" + port;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (RedisClient probe = RedisClient.create("127.0.0.1", port)) {
        probe.ping();
        break;
      } catch (RuntimeException e) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          p.destroyForcibly();
          throw new IllegalStateException("bench redis-server did not start; see " + dir.resolve("redis.log"));
        }
        Thread.sleep(20);
      }
    }
    return new BenchRedis(url, p);
  }

  String url() {
    return url;
  }

  UnifiedJedis redis() {
    return redis;
  }

  String version() {
    return ServerCheck.info(redis, "server").getOrDefault("redis_version", "?");
  }

  /** The Redis server's clock, epoch ms. */
  long nowMs() {
    java.util.List<?> t = (java.util.List<?>) redis.sendCommand(Protocol.Command.TIME);
    return Long.parseLong(new String((byte[]) t.get(0))) * 1000
        + Long.parseLong(new String((byte[]) t.get(1))) / 1000;
  }

  /** CPU seconds the Redis server has used (user + system). */
  double cpuSeconds() {
    java.util.Map<String, String> cpu = ServerCheck.info(redis, "cpu");
    return Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"));
  }

  long usedMemory() {
    return Long.parseLong(ServerCheck.info(redis, "memory").get("used_memory"));
  }

  @Override
  public void close() throws InterruptedException {
    redis.close();
    if (server != null) {
      server.destroy();
      if (!server.waitFor(5, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
  }
}
