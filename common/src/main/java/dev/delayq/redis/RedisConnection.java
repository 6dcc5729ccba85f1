package dev.delayq.redis;

import java.util.LinkedHashMap;
import java.util.Map;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

/**
 * One process's connection to its Redis, as {@link RedisConnector} opened it from the config:
 * the Jedis client (standalone, Sentinel or Cluster, TLS or not) that every gateway uses, how
 * many replicas a state change needs ({@code redis.replicaAcks}), and the master it follows (on
 * a cluster: the masters it knows).
 * Thread-safe; closing it closes the client.
 */
public final class RedisConnection implements AutoCloseable {
  /** What to do when a server answered as a replica: find the master; true when it moved. */
  @FunctionalInterface
  public interface MasterFinder {
    boolean masterLost(String reason);
  }

  private final UnifiedJedis client;
  private final MasterView master;
  private final ReplicaAcks replicaAcks;
  private final String description;

  RedisConnection(UnifiedJedis client, MasterView master, ReplicaAcks replicaAcks, String description) {
    this.client = client;
    this.master = master;
    this.replicaAcks = replicaAcks;
    this.description = description;
  }

  public UnifiedJedis client() {
    return client;
  }

  public ReplicaAcks replicaAcks() {
    return replicaAcks;
  }

  /** Where this connection leads, fit for a log line (no password). */
  public String describe() {
    if (master instanceof ClusterTopology cluster) {
      return description + " (masters " + cluster.masters() + ")";
    }
    return description + " (master at " + master.master() + ")";
  }

  /** True on a Redis Cluster (redis.cluster). */
  public boolean cluster() {
    return master instanceof ClusterTopology;
  }

  /** The master's address now. */
  public HostAndPort master() {
    return master.master();
  }

  /**
   * Grows whenever the master changed (a failover): what was written to the old one after its
   * replica took over is not on the new one, so a process may have to look at its jobs again.
   */
  public long masterEpoch() {
    return master.epoch();
  }

  /** A server answered as a replica: finds the master again; true when it is elsewhere now. */
  public boolean masterLost(String reason) {
    return master.masterLost(reason);
  }

  /**
   * Refuses a server delayq cannot keep jobs on ({@link ServerCheck}), naming it. The first call
   * of every process: a password refused here is a {@link RedisAuthException} saying where the
   * password goes.
   */
  public void checkServer(boolean requireNoeviction) {
    try {
      if (master instanceof ClusterTopology cluster) {
        cluster.onEachMaster((at, node) -> {
          ServerCheck.verifyClusterMaster(node, requireNoeviction, "Redis Cluster master " + at);
          return null;
        });
        return;
      }
      ServerCheck.verify(client, requireNoeviction, "Redis at " + master.master());
    } catch (RuntimeException e) {
      throw explained(e);
    }
  }

  /** Refuses a Cluster node reached as a plain URL (redis.url instead of redis.cluster), naming redis.cluster. */
  public void checkNotClusterNode() {
    if (!(master instanceof ClusterTopology)) {
      try {
        ServerCheck.verifyNotClusterNode(client, "Redis at " + master.master());
      } catch (RuntimeException e) {
        throw explained(e);
      }
    }
  }

  /** {@code e}, or the {@link RedisAuthException} that says what a NOAUTH or WRONGPASS under it means. */
  public RuntimeException explained(RuntimeException e) {
    RedisAuthException auth = RedisAuthException.of(e, master instanceof ClusterTopology
        ? describe() : "Redis at " + master.master());
    return auth != null ? auth : e;
  }

  /**
   * INFO {@code section} of each master: on a cluster every master that serves slots, each on a
   * connection of its own; else the one server. For figures split over the masters (the bench).
   */
  public Map<HostAndPort, Map<String, String>> infoOfEachMaster(String section) {
    if (master instanceof ClusterTopology cluster) {
      return cluster.onEachMaster((at, node) -> ServerCheck.info(node, section));
    }
    Map<HostAndPort, Map<String, String>> one = new LinkedHashMap<>();
    one.put(master.master(), ServerCheck.info(client, section));
    return one;
  }

  @Override
  public void close() {
    if (master instanceof ClusterTopology cluster) {
      cluster.close();
    }
    client.close();
  }
}
