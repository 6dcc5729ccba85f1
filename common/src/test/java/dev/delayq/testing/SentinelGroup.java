package dev.delayq.testing;

import dev.delayq.redisserver.RedisServer;
import dev.delayq.redisserver.TestCa;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * A master, one replica and three real Sentinels (quorum 2) on loopback, as a production
 * Sentinel set-up runs them, for failover tests: {@link #failover()} is {@code SENTINEL
 * FAILOVER} and returns once the Sentinels name the promoted replica and it takes writes.
 */
public final class SentinelGroup implements AutoCloseable {
  public static final String MASTER_NAME = "delayq-master";

  private final List<RedisServer> servers;
  private final List<RedisServer> sentinels;

  private SentinelGroup(List<RedisServer> servers, List<RedisServer> sentinels) {
    this.servers = servers;
    this.sentinels = sentinels;
  }

  /** Starts the servers with {@code serverArgs} each (e.g. AOF), then the Sentinels. */
  public static SentinelGroup start(String... serverArgs) {
    RedisServer master = RedisServer.start(serverArgs);
    List<String> replicaArgs = new ArrayList<>(List.of(serverArgs));
    replicaArgs.addAll(List.of("--replicaof", "127.0.0.1", Integer.toString(master.port())));
    RedisServer replica = RedisServer.start(replicaArgs.toArray(new String[0]));
    RedisServer.await("the replica to sync", Duration.ofSeconds(15),
        () -> "up".equals(info(replica.port(), "replication").get("master_link_status")));
    List<RedisServer> sentinels = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      sentinels.add(RedisServer.startSentinel(MASTER_NAME, master.port(), 2));
    }
    SentinelGroup group = new SentinelGroup(List.of(master, replica), sentinels);
    RedisServer.await("every Sentinel to know the replica and the others", Duration.ofSeconds(20),
        () -> sentinels.stream().allMatch(s -> group.knowsReplicaAndPeers(s.port())));
    return group;
  }

  /** "127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3", as redis.sentinels takes it. */
  public String sentinelList() {
    return sentinels.stream().map(s -> "127.0.0.1:" + s.port()).collect(Collectors.joining(","));
  }

  /** The master as the Sentinels name it now. */
  public HostAndPort master() {
    try (Jedis sentinel = new Jedis("127.0.0.1", sentinels.get(0).port())) {
      List<String> addr = sentinel.sentinelGetMasterAddrByName(MASTER_NAME);
      return new HostAndPort(addr.get(0), Integer.parseInt(addr.get(1)));
    }
  }

  /** The server that is not the master now. */
  public RedisServer replica() {
    int master = master().getPort();
    return servers.stream().filter(s -> s.port() != master).findFirst().orElseThrow();
  }

  public RedisServer masterServer() {
    int master = master().getPort();
    return servers.stream().filter(s -> s.port() == master).findFirst().orElseThrow();
  }

  /**
   * SENTINEL FAILOVER: returns the new master once the Sentinels name it and it is a master
   * (the old one is turned into its replica by the Sentinels soon after).
   */
  public HostAndPort failover() {
    HostAndPort before = master();
    try (Jedis sentinel = new Jedis("127.0.0.1", sentinels.get(0).port())) {
      sentinel.sentinelFailover(MASTER_NAME);
    }
    RedisServer.await("the Sentinels to switch the master", Duration.ofSeconds(30), () -> {
      HostAndPort now = master();
      return !now.equals(before) && "master".equals(info(now.getPort(), "replication").get("role"));
    });
    return master();
  }

  /** Waits until the old master replicates from the new one again (writes can be confirmed). */
  public void awaitReplicaInSync() {
    RedisServer.await("the demoted master to sync from the new one", Duration.ofSeconds(30), () -> {
      Map<String, String> r = info(replica().port(), "replication");
      return "slave".equals(r.get("role")) && "up".equals(r.get("master_link_status"))
          && String.valueOf(master().getPort()).equals(r.get("master_port"));
    });
  }

  private boolean knowsReplicaAndPeers(int sentinelPort) {
    try (Jedis sentinel = new Jedis("127.0.0.1", sentinelPort)) {
      return !sentinel.sentinelReplicas(MASTER_NAME).isEmpty()
          && sentinel.sentinelSentinels(MASTER_NAME).size() >= 2;
    } catch (RuntimeException notYet) {
      return false;
    }
  }

  public static Map<String, String> info(int port, String section) {
    try (RedisClient c = RedisClient.create("127.0.0.1", port)) {
      Map<String, String> out = new java.util.HashMap<>();
      for (String line : c.info(section).split("\r?\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && !line.startsWith("#")) {
          out.put(line.substring(0, colon), line.substring(colon + 1).trim());
        }
      }
      return out;
    }
  }

  @Override
  public void close() {
    sentinels.forEach(RedisServer::close);
    servers.forEach(RedisServer::close);
  }
}
