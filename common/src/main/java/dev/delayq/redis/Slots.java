package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The reads that must go to the one node serving a queue's slot. On a standalone or Sentinel
 * Redis that is the server itself. On a cluster, Jedis's client refuses MULTI (it cannot know
 * the slot before the first command), so a transaction is opened on a connection to the slot's
 * master; and the keys of a queue are listed with CLUSTER GETKEYSINSLOT on that master, which
 * reads the one slot, instead of a SCAN of the whole keyspace.
 */
final class Slots {
  private Slots() {}

  static boolean isCluster(UnifiedJedis redis) {
    return redis instanceof RedisClusterClient;
  }

  /** MULTI on the node that serves {@code key}'s slot; closing it returns the connection. */
  static AbstractTransaction multi(UnifiedJedis redis, String key) {
    if (redis instanceof RedisClusterClient cluster) {
      Connection c = cluster.getConnectionFromSlot(JedisClusterCRC16.getSlot(key));
      return new Transaction(c, true, true);
    }
    return redis.multi();
  }

  /**
   * SCRIPT LOAD of {@code source} on the node that serves {@code sampleKey}'s slot. Jedis's cluster
   * client sends SCRIPT LOAD to every master whatever key it is given, so one master that is down
   * would fail the load, and with it the call that met NOSCRIPT on a healthy one (a master just
   * restarted, or a replica just promoted, has no scripts yet).
   */
  static String scriptLoad(UnifiedJedis redis, String sampleKey, String source) {
    if (redis instanceof RedisClusterClient cluster) {
      try (Jedis node = new Jedis(cluster.getConnectionFromSlot(JedisClusterCRC16.getSlot(sampleKey)))) {
        return node.scriptLoad(source);
      }
    }
    return redis.scriptLoad(source);
  }

  /**
   * On a cluster, the keys of {@code sampleKey}'s slot that start with {@code prefix} (CLUSTER
   * GETKEYSINSLOT, a page at a time); null on a plain Redis, which has no slots to ask about.
   */
  static List<String> keysInSlot(UnifiedJedis redis, String sampleKey, String prefix) {
    if (!(redis instanceof RedisClusterClient cluster)) {
      return null;
    }
    int slot = JedisClusterCRC16.getSlot(sampleKey);
    List<String> out = new ArrayList<>();
    try (Jedis node = new Jedis(cluster.getConnectionFromSlot(slot))) {
      long count = node.clusterCountKeysInSlot(slot);
      // the slot may grow between the two calls; ask for more than were counted
      for (String key : node.clusterGetKeysInSlot(slot, (int) Math.min(Integer.MAX_VALUE, count + 1000))) {
        if (key.startsWith(prefix)) {
          out.add(key);
        }
      }
    }
    return out;
  }
}
