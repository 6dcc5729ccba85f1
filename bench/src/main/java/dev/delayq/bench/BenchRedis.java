package dev.delayq.bench;

import dev.delayq.config.ConfigLoader;
import dev.delayq.redisserver.RedisBinary;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.ServerCheck;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis a benchmark runs against: by default a private redis-server started for the run
 * (no persistence, like the anchors' Redis) and stopped after, so a benchmark never touches
 * user data; or the server at --redis; or a Redis Cluster (--cluster: its seed nodes, or
 * {@code local} for a private cluster of three masters on loopback, made with redis-cli
 * --cluster create). With replica acks, every state change waits for that many replicas
 * (redis.replicaAcks); the private server then gets its replicas on loopback.
 */
final class BenchRedis implements AutoCloseable {
  private final String url;
  /** The cluster's seed nodes, or empty for a standalone Redis. */
  private final String cluster;
  private final int replicaAcks;
  private final List<Process> servers;
  private final RedisConnection connection;
  /** A bench stopped by a signal (timeout, Ctrl-C) leaves no private redis-server behind; removed at close. */
  private final Thread stopOnExit;

  private BenchRedis(String url, String cluster, int replicaAcks, List<Process> servers) {
    this.url = url;
    this.cluster = cluster;
    this.replicaAcks = replicaAcks;
    this.servers = servers;
    this.stopOnExit = new Thread(() -> servers.forEach(Process::destroyForcibly), "bench-redis-stop");
    Runtime.getRuntime().addShutdownHook(stopOnExit);
    this.connection = RedisConnector.connect(new ConfigLoader().load(null, env()), "delayq-bench", 64);
  }

  /** The DELAYQ_REDIS_* variables of every process of the run. */
  Map<String, String> env() {
    Map<String, String> env = new java.util.HashMap<>(Map.of("DELAYQ_REDIS_SOCKET_TIMEOUT", "30s",
        "DELAYQ_REDIS_REPLICA_ACKS", Integer.toString(replicaAcks)));
    if (cluster.isEmpty()) {
      env.put("DELAYQ_REDIS_URL", url);
    } else {
      env.put("DELAYQ_REDIS_CLUSTER", cluster);
    }
    return env;
  }

  static BenchRedis start(String externalUrl, int replicaAcks) throws IOException, InterruptedException {
    return start(externalUrl, null, replicaAcks);
  }

  static BenchRedis start(String externalUrl, String cluster, int replicaAcks)
      throws IOException, InterruptedException {
    if (cluster != null && !cluster.equals("local")) {
      return new BenchRedis("", cluster, replicaAcks, List.of());
    }
    if (cluster != null) {
      return startLocalCluster(replicaAcks);
    }
    if (externalUrl != null) {
      return new BenchRedis(externalUrl, "", replicaAcks, List.of());
    }
    List<Process> servers = new ArrayList<>();
    int port = startServer(servers, List.of());
    for (int i = 0; i < replicaAcks; i++) {
      int replica = startServer(servers, List.of("--replicaof", "127.0.0.1", Integer.toString(port)));
      awaitSynced(replica, servers);
    }
    return new BenchRedis("redis://127.0.0.1:" + port, "", replicaAcks, servers);
  }

  /** Three masters on loopback, each a third of the slots, as redis-cli --cluster create makes them. */
  private static BenchRedis startLocalCluster(int replicaAcks) throws IOException, InterruptedException {
    if (replicaAcks > 0) {
      throw new IllegalArgumentException("--cluster local has no replicas: use --replica-acks 0");
    }
    List<Process> servers = new ArrayList<>();
    List<String> create = new ArrayList<>(List.of(redisCli().toString(), "--cluster", "create"));
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int port = freePort();
      ports.add(startServer(servers, port, List.of("--cluster-enabled", "yes",
          "--cluster-config-file", "nodes-" + port + ".conf")));
      create.add("127.0.0.1:" + port);
    }
    create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
    Process cli = new ProcessBuilder(create).redirectErrorStream(true).start();
    String out = new String(cli.getInputStream().readAllBytes());
    if (!cli.waitFor(60, TimeUnit.SECONDS) || cli.exitValue() != 0) {
      servers.forEach(Process::destroyForcibly);
      throw new IllegalStateException("redis-cli --cluster create failed: " + out);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (int port : ports) {
      try (redis.clients.jedis.Jedis node = new redis.clients.jedis.Jedis("127.0.0.1", port)) {
        while (!node.clusterInfo().contains("cluster_state:ok")) {
          if (System.nanoTime() > deadline) {
            servers.forEach(Process::destroyForcibly);
            throw new IllegalStateException("the bench cluster did not reach cluster_state:ok");
          }
          Thread.sleep(50);
        }
      }
    }
    String seeds = String.join(",", ports.stream().map(p -> "127.0.0.1:" + p).toList());
    return new BenchRedis("", seeds, 0, servers);
  }

  /** redis-cli beside the redis-server in use, else on PATH. */
  private static Path redisCli() {
    Path beside = RedisBinary.locate().resolveSibling("redis-cli");
    if (Files.isExecutable(beside)) {
      return beside;
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir, "redis-cli");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    throw new IllegalStateException("redis-cli is not on PATH: --cluster local needs it (Debian: redis-tools)");
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static int startServer(List<Process> servers, List<String> extra) throws IOException, InterruptedException {
    return startServer(servers, freePort(), extra);
  }

  private static int startServer(List<Process> servers, int port, List<String> extra)
      throws IOException, InterruptedException {
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

  /** On a cluster, the port of the master serving each slot (index: slot); null on a standalone Redis. */
  int[] slotOwners() {
    if (cluster.isEmpty()) {
      return null;
    }
    HostAndPort seed = HostAndPort.from(cluster.split(",")[0].trim());
    int[] owners = new int[16384];
    try (redis.clients.jedis.Jedis node = new redis.clients.jedis.Jedis(seed.getHost(), seed.getPort())) {
      for (Object range : node.clusterSlots()) {
        List<?> r = (List<?>) range;
        int port = ((Long) ((List<?>) r.get(2)).get(1)).intValue();
        for (long slot = (Long) r.get(0); slot <= (Long) r.get(1); slot++) {
          owners[(int) slot] = port;
        }
      }
    }
    return owners;
  }

  /** The seed nodes when on a cluster, else empty. */
  String cluster() {
    return cluster;
  }

  UnifiedJedis redis() {
    return connection.client();
  }

  String version() {
    return connection.infoOfEachMaster("server").values().iterator().next().getOrDefault("redis_version", "?");
  }

  /** The Redis server's clock, epoch ms (on a cluster: of the master serving the sample key). */
  long nowMs() {
    return dev.delayq.redis.RedisTime.nowMs(redis(), "bench:clock");
  }

  /** CPU seconds the Redis server has used (user + system); on a cluster, all masters together. */
  double cpuSeconds() {
    return cpuByMaster().values().stream().mapToDouble(Double::doubleValue).sum();
  }

  /** CPU seconds (user + system) of each master, in the order of their slots. */
  Map<String, Double> cpuByMaster() {
    Map<String, Double> out = new java.util.LinkedHashMap<>();
    connection.infoOfEachMaster("cpu").forEach((at, cpu) -> out.put(at.toString(),
        Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"))));
    return out;
  }

  /**
   * INFO commandstats: per command (script calls as evalsha, and the commands the scripts run
   * counted again under their own names) its calls and microseconds so far, {calls, usec},
   * summed over the masters.
   */
  Map<String, long[]> commandStats() {
    Map<String, long[]> out = new java.util.TreeMap<>();
    connection.infoOfEachMaster("commandstats").values().forEach(master -> master.forEach((key, value) -> {
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
        long[] sum = out.computeIfAbsent(key.substring(8), k -> new long[2]);
        sum[0] += calls;
        sum[1] += usec;
      }
    }));
    return out;
  }

  /**
   * INFO memory, field by field. On the private server, CONFIG RESETSTAT and SLOWLOG RESET
   * first: Redis 7 keeps a latency histogram per command name once used (tens of KB each), and
   * the slow log up to 128 commands with up to 32 arguments of up to 128 bytes each (a batched
   * enqueue's records: about 5 KB an entry, and on a loaded machine many calls pass its 10 ms),
   * both in used_memory, so both would count as growth that no job left behind. A --redis
   * server's stats are not the bench's to reset; its figures then include them. (One server:
   * on a cluster, the first master's figures only.) The resets and the INFO go in one
   * transaction: the supervisor, scheduler and workers keep calling Redis, and every command
   * name they used between a reset and the reading would count a new histogram (on a loaded
   * machine, 10-100 KB over a 10-minute soak's baseline).
   */
  Map<String, String> memoryInfo() {
    if (!servers.isEmpty() && cluster.isEmpty()) {
      try (AbstractTransaction t = redis().multi()) {
        t.sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        t.sendCommand(Protocol.Command.SLOWLOG, "RESET");
        Response<Object> info = t.sendCommand(Protocol.Command.INFO, "memory");
        Response<Object> stats = t.sendCommand(Protocol.Command.MEMORY, "STATS");
        t.exec();
        Map<String, String> fields = new LinkedHashMap<>(ServerCheck.parseInfo(info.get()));
        addMemoryStats(fields, "memory_stats.", stats.get());
        return fields;
      }
    }
    return connection.infoOfEachMaster("memory").values().iterator().next();
  }

  /**
   * MEMORY STATS flattened into {@code prefix + name} (a database's nested figures as
   * {@code memory_stats.db.0.overhead.hashtable.main}): where used_memory sits, per structure,
   * so that a soak's growth over its baseline can be traced to one (the main keyspace table, the
   * expires table, the Lua caches ...) rather than read as one number.
   */
  private static void addMemoryStats(Map<String, String> into, String prefix, Object reply) {
    if (!(reply instanceof List<?> pairs)) {
      return;
    }
    for (int i = 0; i + 1 < pairs.size(); i += 2) {
      String name = text(pairs.get(i));
      Object value = pairs.get(i + 1);
      if (value instanceof List<?>) {
        addMemoryStats(into, prefix + name + ".", value);
      } else {
        into.put(prefix + name, text(value));
      }
    }
  }

  private static String text(Object value) {
    return value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(value);
  }

  long slowlogLength() {
    return (Long) redis().sendCommand(Protocol.Command.SLOWLOG, "LEN");
  }

  long usedMemory() {
    long sum = 0;
    for (Map<String, String> m : connection.infoOfEachMaster("memory").values()) {
      sum += Long.parseLong(m.get("used_memory"));
    }
    return sum;
  }

  @Override
  public void close() throws InterruptedException {
    try {
      Runtime.getRuntime().removeShutdownHook(stopOnExit);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook stops the servers
    }
    connection.close();
    for (Process server : servers) {
      server.destroy();
      if (!server.waitFor(5, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
  }
}
