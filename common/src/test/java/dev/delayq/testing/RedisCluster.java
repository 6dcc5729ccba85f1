package dev.delayq.testing;

import dev.delayq.redisserver.RedisBinary;
import dev.delayq.redisserver.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A real Redis Cluster of three masters (and, made by {@link #startWithReplicas}, a replica of
 * each) on free loopback ports, made as an operator makes one: {@code redis-server
 * --cluster-enabled yes} nodes, then {@code redis-cli --cluster create}.
 * {@link #shared()} is started once per test JVM (a cluster takes a few seconds to form) and
 * torn down when the JVM exits; tests keep apart by fresh queue names, as on the plain fixture.
 */
public final class RedisCluster implements AutoCloseable {
  private static RedisCluster shared;

  private final List<RedisServer> masters;
  /** Every node, masters first (the same as masters on a cluster without replicas). */
  private final List<RedisServer> nodes;

  private RedisCluster(List<RedisServer> masters, List<RedisServer> nodes) {
    this.masters = masters;
    this.nodes = nodes;
  }

  /** The JVM-wide cluster, formed on first use. */
  public static synchronized RedisCluster shared() {
    if (shared == null) {
      shared = start();
    }
    return shared;
  }

  /** A new cluster of three masters, each serving a third of the slots, state ok. */
  public static RedisCluster start() {
    List<RedisServer> masters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      masters.add(RedisServer.startClusterNode());
    }
    return form(masters, masters, 0);
  }

  /**
   * A new cluster of three masters and a replica of each ({@code --cluster-replicas 1}), whose
   * nodes count a silent peer as failed after {@code nodeTimeoutMs}: kill a master and its
   * replica takes over its slots about that long after. State ok, every replica in sync.
   */
  public static RedisCluster startWithReplicas(int nodeTimeoutMs) {
    List<RedisServer> nodes = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      nodes.add(RedisServer.startClusterNode(nodeTimeoutMs));
    }
    // redis-cli makes the first three of the list masters and the others their replicas
    RedisCluster cluster = form(new ArrayList<>(nodes.subList(0, 3)), nodes, 1);
    RedisServer.await("every replica in sync with its master", Duration.ofSeconds(30),
        () -> nodes.subList(3, 6).stream().allMatch(r -> infoField(r.port(), "replication", "master_link_status").equals("up")));
    return cluster;
  }

  private static RedisCluster form(List<RedisServer> masters, List<RedisServer> nodes, int replicas) {
    RedisCluster cluster = new RedisCluster(masters, nodes);
    List<String> create = new ArrayList<>(List.of("--cluster", "create"));
    for (RedisServer n : nodes) {
      create.add("127.0.0.1:" + n.port());
    }
    create.addAll(List.of("--cluster-replicas", Integer.toString(replicas), "--cluster-yes"));
    cluster.cli(create);
    RedisServer.await("cluster_state:ok on every node", Duration.ofSeconds(30),
        () -> nodes.stream().allMatch(n -> "ok".equals(clusterInfo(n.port()))));
    // a replica knows the slot map once it has heard of every master's slots
    RedisServer.await("every node to see all 16384 slots", Duration.ofSeconds(30),
        () -> nodes.stream().allMatch(n -> infoLine(n.port(), "cluster_slots_ok:").equals("16384")));
    return cluster;
  }

  /** Every node of the cluster (masters first, then replicas, as formed). */
  public List<RedisServer> nodes() {
    return nodes;
  }

  /** The node on {@code port}. */
  public RedisServer node(int port) {
    return nodes.stream().filter(n -> n.port() == port).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no node of this cluster on port " + port));
  }

  /**
   * SIGKILLs the master serving {@code slot} and waits until a replica has taken over the slot
   * (as the surviving nodes see it, cluster_state ok again); returns the new master's port.
   */
  public int killMasterOf(int slot, Duration failoverTimeout) {
    int dead = ownerOf(slot).getPort();
    node(dead).kill();
    RedisServer.await("a replica to take over slot " + slot + " from :" + dead, failoverTimeout,
        () -> {
          try {
            int now = ownerOf(slot).getPort();
            return now != dead && nodes.stream().filter(n -> n.port() != dead)
                .allMatch(n -> "ok".equals(clusterInfo(n.port())));
          } catch (RuntimeException notYet) {
            return false;
          }
        });
    return ownerOf(slot).getPort();
  }

  /** Waits until the node on {@code port} (a restarted master, say) is a replica in sync with its master. */
  public void awaitReplicaInSync(int port) {
    RedisServer.await(":" + port + " to be a replica in sync", Duration.ofSeconds(30),
        () -> infoField(port, "replication", "role").equals("slave")
            && infoField(port, "replication", "master_link_status").equals("up"));
  }

  /** "127.0.0.1:p1,127.0.0.1:p2,...", every node, as redis.cluster takes it. */
  public String seeds() {
    return nodes.stream().map(m -> "127.0.0.1:" + m.port()).collect(Collectors.joining(","));
  }

  public List<RedisServer> masters() {
    return masters;
  }

  /** The master serving {@code slot} now. */
  public HostAndPort ownerOf(int slot) {
    try (Jedis node = liveNode()) {
      for (Object range : node.clusterSlots()) {
        List<?> r = (List<?>) range;
        if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
          List<?> master = (List<?>) r.get(2);
          return new HostAndPort(new String((byte[]) master.get(0), StandardCharsets.UTF_8),
              ((Long) master.get(1)).intValue());
        }
      }
    }
    throw new IllegalStateException("no master serves slot " + slot);
  }

  /** The cluster's node id of the master on {@code port}. */
  public String nodeId(int port) {
    try (Jedis node = new Jedis("127.0.0.1", port)) {
      return node.clusterMyId();
    }
  }

  /** The port of the master serving each slot now (index: slot). */
  public int[] slotOwners() {
    int[] owners = new int[16384];
    try (Jedis node = liveNode()) {
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

  /**
   * A fresh queue name whose {@code shards} shards (slots {@code {name#i}}, or {@code {name}} for
   * one) are served by as many different masters (at most three), the first one's slot being the
   * lowest of its master when {@code firstAtLowestSlot}, so that {@link #moveSlot} can move it.
   */
  public String queueSpreadOverMasters(int shards, boolean firstAtLowestSlot) {
    int[] owners = slotOwners();
    List<Integer> lowest = lowestSlots();
    for (int attempt = 0; attempt < 10_000_000; attempt++) {
      String q = RedisFixture.freshQueue();
      java.util.Set<Integer> masters = new java.util.HashSet<>();
      int first = -1;
      for (int i = 0; i < shards; i++) {
        int slot = redis.clients.jedis.util.JedisClusterCRC16.getSlot(
            "{" + (shards == 1 ? q : q + "#" + i) + "}");
        first = first < 0 ? slot : first;
        masters.add(owners[slot]);
      }
      if (masters.size() == Math.min(shards, 3) && (!firstAtLowestSlot || lowest.contains(first))) {
        return q;
      }
    }
    throw new IllegalStateException("no queue name found spread over the masters");
  }

  /** The lowest slot of each master: what {@code redis-cli --cluster reshard} moves first. */
  public List<Integer> lowestSlots() {
    Map<Integer, Integer> lowest = new TreeMap<>();
    try (Jedis node = liveNode()) {
      for (Object range : node.clusterSlots()) {
        List<?> r = (List<?>) range;
        int port = ((Long) ((List<?>) r.get(2)).get(1)).intValue();
        lowest.merge(port, ((Long) r.get(0)).intValue(), Math::min);
      }
    }
    return new ArrayList<>(lowest.values());
  }

  /**
   * {@code redis-cli --cluster reshard} of one slot, keys and all, from the master that serves
   * {@code slot} to the master on {@code toPort}, while the cluster serves. reshard moves a
   * source's lowest slots first, so {@code slot} must be its master's lowest
   * ({@link #lowestSlots}); tests pick a queue name that hashes there.
   */
  public void moveSlot(int slot, int toPort) {
    HostAndPort from = ownerOf(slot);
    if (!lowestSlots().contains(slot)) {
      throw new IllegalArgumentException("slot " + slot + " is not the lowest of its master "
          + from + ": reshard would move another one");
    }
    cli(List.of("--cluster", "reshard", "127.0.0.1:" + from.getPort(),
        "--cluster-from", nodeId(from.getPort()), "--cluster-to", nodeId(toPort),
        "--cluster-slots", "1", "--cluster-yes", "--cluster-pipeline", "10"));
    RedisServer.await("slot " + slot + " to be served by 127.0.0.1:" + toPort, Duration.ofSeconds(30),
        () -> ownerOf(slot).getPort() == toPort);
  }

  /** Runs redis-cli with {@code args}; throws with its output when it fails. */
  public String cli(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(redisCli().toString());
    command.addAll(args);
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("redis-cli " + String.join(" ", args) + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** redis-cli beside the redis-server the fixture runs, else on PATH. */
  static Path redisCli() {
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
    throw new IllegalStateException("redis-cli is not on PATH: the cluster tests need it to form "
        + "a cluster (Debian: apt-get install redis-tools)");
  }

  /** A connection to the first node that answers (a test may have killed some). */
  private Jedis liveNode() {
    for (RedisServer n : nodes) {
      Jedis j = new Jedis("127.0.0.1", n.port());
      try {
        j.ping();
        return j;
      } catch (RuntimeException down) {
        j.close();
      }
    }
    throw new IllegalStateException("no node of the cluster answers");
  }

  private static String infoField(int port, String section, String field) {
    try (Jedis node = new Jedis("127.0.0.1", port)) {
      return node.info(section).lines().filter(l -> l.startsWith(field + ":"))
          .map(l -> l.substring(field.length() + 1).trim()).findFirst().orElse("");
    } catch (RuntimeException notYet) {
      return "";
    }
  }

  private static String infoLine(int port, String prefix) {
    try (Jedis node = new Jedis("127.0.0.1", port)) {
      return node.clusterInfo().lines().filter(l -> l.startsWith(prefix))
          .map(l -> l.substring(prefix.length()).trim()).findFirst().orElse("");
    } catch (RuntimeException notYet) {
      return "";
    }
  }

  private static String clusterInfo(int port) {
    try (Jedis node = new Jedis("127.0.0.1", port)) {
      return node.clusterInfo().lines()
          .filter(l -> l.startsWith("cluster_state:")).map(l -> l.substring(14).trim())
          .findFirst().orElse("");
    } catch (RuntimeException notYet) {
      return "";
    }
  }

  @Override
  public void close() {
    nodes.forEach(RedisServer::kill);
  }
}
