package dev.delayq.bench;

import dev.delayq.config.ConfigLoader;
import dev.delayq.redis.RedisBinary;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.ServerCheck;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis a benchmark runs against: by default a private redis-server started for the run
 * (no persistence, like the anchors' Redis) and stopped after, so a benchmark never touches
 * user data; or the server at --redis. With replica acks, every state change waits for that
 * many replicas (redis.replicaAcks); the private server then gets its replicas on loopback.
 */
final class BenchRedis implements AutoCloseable {
  private final String url;
  private final int replicaAcks;
  private final List<Process> servers;
  private final RedisConnection connection;

  private BenchRedis(String url, int replicaAcks, List<Process> servers) {
    this.url = url;
    this.replicaAcks = replicaAcks;
    this.servers = servers;
    this.connection = RedisConnector.connect(new ConfigLoader().load(null, Map.of(
        "DELAYQ_REDIS_URL", url, "DELAYQ_REDIS_SOCKET_TIMEOUT", "30s",
        "DELAYQ_REDIS_REPLICA_ACKS", Integer.toString(replicaAcks))), "delayq-bench", 64);
  }

  static BenchRedis start(String externalUrl, int replicaAcks) throws IOException, InterruptedException {
    if (externalUrl != null) {
      return new BenchRedis(externalUrl, replicaAcks, List.of());
    }
    List<Process> servers = new ArrayList<>();
    int port = startServer(servers, List.of());
    for (int i = 0; i < replicaAcks; i++) {
      int replica = startServer(servers, List.of("--replicaof", "127.0.0.1", Integer.toString(port)));
      awaitSynced(replica, servers);
    }
    return new BenchRedis("redis://127.0.0.1:" + port, replicaAcks, servers);
  }

  private static int startServer(List<Process> servers, List<String> extra) throws IOException, InterruptedException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path dir = Files.createTempDirectory("delayq-bench-redis");
    List<String> command = new ArrayList<>(List.of(RedisBinary.locate().toString(),
        "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
        "--dir", dir.toString(), "--maxmemory-policy", "noeviction"));
    command.addAll(extra);
    Process p = new ProcessBuilder(command)
        .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
    servers.add(p);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (RedisClient probe = RedisClient.create("127.0.0.1", port)) {
        probe.ping();
        return port;
      } catch (RuntimeException e) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          servers.forEach(Process::destroyForcibly);
          throw new IllegalStateException("bench redis-server did not start; see " + dir.resolve("redis.log"));
        }
        Thread.sleep(20);
      }
    }
  }

  private static void awaitSynced(int replica, List<Process> servers) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    try (RedisClient probe = RedisClient.create("127.0.0.1", replica)) {
      while (!probe.info("replication").contains("master_link_status:up")) {
        if (System.nanoTime() > deadline) {
          servers.forEach(Process::destroyForcibly);
          throw new IllegalStateException("bench replica on port " + replica + " did not sync");
        }
        Thread.sleep(50);
      }
    }
  }

  int replicaAcks() {
    return replicaAcks;
  }

  /** The connection producers use (with its replica acks). */
  RedisConnection connection() {
    return connection;
  }

  String url() {
    return url;
  }

  UnifiedJedis redis() {
    return connection.client();
  }

  String version() {
    return ServerCheck.info(redis(), "server").getOrDefault("redis_version", "?");
  }

  /** The Redis server's clock, epoch ms. */
  long nowMs() {
    List<?> t = (List<?>) redis().sendCommand(Protocol.Command.TIME);
    return Long.parseLong(new String((byte[]) t.get(0))) * 1000
        + Long.parseLong(new String((byte[]) t.get(1))) / 1000;
  }

  /** CPU seconds the Redis server has used (user + system). */
  double cpuSeconds() {
    Map<String, String> cpu = ServerCheck.info(redis(), "cpu");
    return Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"));
  }

  /**
   * INFO commandstats: per command (script calls as evalsha, and the commands the scripts run
   * counted again under their own names) its calls and microseconds so far, {calls, usec}.
   */
  Map<String, long[]> commandStats() {
    Map<String, long[]> out = new java.util.TreeMap<>();
    ServerCheck.info(redis(), "commandstats").forEach((key, value) -> {
      if (key.startsWith("cmdstat_")) {
        long calls = 0;
        long usec = 0;
        for (String part : value.split(",")) {
          if (part.startsWith("calls=")) {
            calls = Long.parseLong(part.substring(6));
          } else if (part.startsWith("usec=")) {
            usec = Long.parseLong(part.substring(5));
          }
        }
        out.put(key.substring(8), new long[] {calls, usec});
      }
    });
    return out;
  }

  /**
   * INFO memory, field by field. On the private server, CONFIG RESETSTAT and SLOWLOG RESET
   * first: Redis 7 keeps a latency histogram per command name once used (tens of KB each), and
   * the slow log up to 128 commands with up to 32 arguments of up to 128 bytes each (a batched
   * enqueue's records: about 5 KB an entry, and on a loaded machine many calls pass its 10 ms),
   * both in used_memory, so both would count as growth that no job left behind. A --redis
   * server's stats are not the bench's to reset; its figures then include them.
   */
  Map<String, String> memoryInfo() {
    if (!servers.isEmpty()) {
      redis().sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
      redis().sendCommand(Protocol.Command.SLOWLOG, "RESET");
    }
    return ServerCheck.info(redis(), "memory");
  }

  long slowlogLength() {
    return (Long) redis().sendCommand(Protocol.Command.SLOWLOG, "LEN");
  }

  long usedMemory() {
    return Long.parseLong(ServerCheck.info(redis(), "memory").get("used_memory"));
  }

  @Override
  public void close() throws InterruptedException {
    connection.close();
    for (Process server : servers) {
      server.destroy();
      if (!server.waitFor(5, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
  }
}
