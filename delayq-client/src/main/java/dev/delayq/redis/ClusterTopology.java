package dev.delayq.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The masters of a Redis Cluster as one process sees them through Jedis's cluster client, which
 * keeps the slot map, follows MOVED and ASK, and refreshes the map on a redirect. A replica's
 * READONLY (its master failed over while a connection was open) refreshes the map at once.
 * Cluster-wide reads ({@code check}, the server check) visit each master that serves slots
 * through a connection of its own, so none of them is asked about another's keys.
 */
final class ClusterTopology implements MasterView {
  private static final Logger log = LoggerFactory.getLogger(ClusterTopology.class);

  private final String process;
  private final RedisClusterClient client;

  ClusterTopology(String process, RedisClusterClient client) {
    this.process = process;
    this.client = client;
  }

  @Override
  public HostAndPort master() {
    List<HostAndPort> masters = masters();
    return masters.isEmpty() ? null : masters.get(0);
  }

  /**
   * Always 0: a slot moved by resharding carries its keys with it, and a cluster failover is not
   * told apart from it here (see docs/redis-layout.md).
   */
  @Override
  public long epoch() {
    return 0;
  }

  @Override
  public boolean masterLost(String reason) {
    log.info("{}: a cluster node answered as a replica ({}); reading the slot map again", process,
        reason == null ? "READONLY" : reason.split(" ", 2)[0]);
    client.refreshClusterTopology();
    return true;
  }

  /** The masters that serve slots, each once, in the order of their first slot (CLUSTER SLOTS). */
  List<HostAndPort> masters() {
    return new ArrayList<>(firstSlotOfEachMaster().keySet());
  }

  /** Runs {@code work} once on each master that serves slots, on a connection to that master. */
  <T> Map<HostAndPort, T> onEachMaster(BiFunction<HostAndPort, UnifiedJedis, T> work) {
    Map<HostAndPort, T> out = new LinkedHashMap<>();
    firstSlotOfEachMaster().forEach((master, slot) -> {
      try (UnifiedJedis node = new NodeClient(client.getConnectionFromSlot(slot))) {
        out.put(master, work.apply(master, node));
      }
    });
    return out;
  }

  private Map<HostAndPort, Integer> firstSlotOfEachMaster() {
    Map<HostAndPort, Integer> first = new LinkedHashMap<>();
    List<Object> ranges = new ArrayList<>(slotRanges());
    ranges.sort((a, b) -> Long.compare((Long) ((List<?>) a).get(0), (Long) ((List<?>) b).get(0)));
    for (Object range : ranges) {
      List<?> r = (List<?>) range;
      List<?> master = (List<?>) r.get(2);
      HostAndPort at = new HostAndPort(new String((byte[]) master.get(0), StandardCharsets.UTF_8),
          ((Long) master.get(1)).intValue());
      first.putIfAbsent(at, ((Long) r.get(0)).intValue());
    }
    return first;
  }

  /** CLUSTER SLOTS from the first node of the client's map that answers. */
  private List<?> slotRanges() {
    RuntimeException last = null;
    for (ConnectionPool pool : client.getClusterNodes().values()) {
      try (Connection c = pool.getResource()) {
        return (List<?>) c.executeCommand(new CommandObject<>(
            new CommandArguments(Protocol.Command.CLUSTER).add("SLOTS"), BuilderFactory.RAW_OBJECT));
      } catch (RuntimeException e) {
        last = e;
      }
    }
    throw last != null ? last : new IllegalStateException(process + ": no cluster node known");
  }

  /** A client on one borrowed connection; closing it gives the connection back to its pool. */
  private static final class NodeClient extends UnifiedJedis {
    NodeClient(Connection connection) {
      super(connection);
    }
  }
}
