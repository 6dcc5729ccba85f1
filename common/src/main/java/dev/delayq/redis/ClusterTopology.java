package dev.delayq.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
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

  private static final long LOOK_EVERY_MS = 1000;

  private final String process;
  private final RedisClusterClient client;
  private final AtomicLong epoch = new AtomicLong();
  /** The node ids that served slots at the last look (touched by the watch thread only). */
  private Set<String> mastersSeen;
  private volatile Thread watch;
  private volatile boolean closed;

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
   * Grows when a node that was not a master serves slots: a replica took over from a failed
   * master, so what the old master had not passed on is missing on the new one and the workers
   * must look at their in-flight lists again ({@code FailoverResync}). A slot moved by
   * resharding goes to a master there was already, keys and all, and does not count. The slot
   * map is looked at once a second by a daemon thread, started by the first call (only workers
   * ask), so a failover counts within about a second of the surviving nodes agreeing on it.
   */
  @Override
  public long epoch() {
    if (watch == null) {
      startWatch();
    }
    return epoch.get();
  }

  private synchronized void startWatch() {
    if (watch != null) {
      return;
    }
    watch = new Thread(() -> {
      while (!closed) {
        try {
          lookAtMasters();
          Thread.sleep(LOOK_EVERY_MS);
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          // no node answers now (a failover under way): the next look tries again
          try {
            Thread.sleep(LOOK_EVERY_MS);
          } catch (InterruptedException stop) {
            return;
          }
        }
      }
    }, process + "-cluster-masters");
    watch.setDaemon(true);
    watch.start();
  }

  /** One look at the slot map: counts an epoch when a master serves slots that was not one before. */
  void lookAtMasters() {
    Map<String, HostAndPort> now = new LinkedHashMap<>();
    for (SlotRange range : slotRanges()) {
      now.put(range.masterId(), range.master());
    }
    if (mastersSeen != null && !mastersSeen.containsAll(now.keySet())) {
      long e = epoch.incrementAndGet();
      List<HostAndPort> fresh = now.entrySet().stream().filter(m -> !mastersSeen.contains(m.getKey()))
          .map(Map.Entry::getValue).toList();
      log.warn("{}: Redis Cluster node(s) {} serve slots as master now (a failover; master epoch {}): "
          + "consumers look at their in-flight lists again", process, fresh, e);
    }
    mastersSeen = new HashSet<>(now.keySet());
  }

  /** Ends the watch of the slot map; the client is closed by its owner. */
  void close() {
    closed = true;
    Thread w = watch;
    if (w != null) {
      w.interrupt();
    }
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
    List<SlotRange> ranges = new ArrayList<>(slotRanges());
    ranges.sort((a, b) -> Integer.compare(a.firstSlot(), b.firstSlot()));
    for (SlotRange r : ranges) {
      first.putIfAbsent(r.master(), r.firstSlot());
    }
    return first;
  }

  /**
   * One range of CLUSTER SLOTS: its first slot and its master's address and node id (the id where
   * the server gives it, Redis 4 and later; else the address).
   */
  private record SlotRange(int firstSlot, HostAndPort master, String masterId) {
    static SlotRange of(Object reply) {
      List<?> r = (List<?>) reply;
      List<?> m = (List<?>) r.get(2);
      HostAndPort at = new HostAndPort(new String((byte[]) m.get(0), StandardCharsets.UTF_8), ((Long) m.get(1)).intValue());
      String id = m.size() > 2 ? new String((byte[]) m.get(2), StandardCharsets.UTF_8) : at.toString();
      return new SlotRange(((Long) r.get(0)).intValue(), at, id);
    }
  }

  /** CLUSTER SLOTS from the first node of the client's map that answers, each range read once. */
  private List<SlotRange> slotRanges() {
    RuntimeException last = null;
    for (ConnectionPool pool : client.getClusterNodes().values()) {
      List<?> reply;
      try (Connection c = pool.getResource()) {
        reply = (List<?>) c.executeCommand(new CommandObject<>(
            new CommandArguments(Protocol.Command.CLUSTER).add("SLOTS"), BuilderFactory.RAW_OBJECT));
      } catch (RuntimeException e) {
        last = e;
        continue;
      }
      return reply.stream().map(SlotRange::of).toList();
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
