package dev.delayq.redis;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * Checks, at every process's start, that the Redis server can keep jobs: version 6.2 or later
 * (BLMOVE, LPOS), not a Cluster node reached as a plain server (keys outside its slots would be
 * redirected), a master (a replica refuses writes, and a writable one loses them at its next
 * sync), and a maxmemory-policy of noeviction (any other policy deletes jobs silently when
 * memory runs out).
 */
public final class ServerCheck {
  private static final Logger log = LoggerFactory.getLogger(ServerCheck.class);

  /** A server delayq must not run on; the message says why. */
  public static final class UnfitServerException extends RuntimeException {
    UnfitServerException(String message) {
      super(message);
    }
  }

  private ServerCheck() {}

  /**
   * Throws {@link UnfitServerException} for a server that is too old, or whose eviction policy
   * is not noeviction when {@code requireNoeviction}; otherwise only warns about the latter.
   */
  public static void verify(UnifiedJedis redis, boolean requireNoeviction) {
    verify(redis, requireNoeviction, "this Redis");
  }

  /** As {@link #verify(UnifiedJedis, boolean)}; {@code where} names the server in messages. */
  public static void verify(UnifiedJedis redis, boolean requireNoeviction, String where) {
    verify(redis, requireNoeviction, where, false);
  }

  /** As {@link #verify}, for one master of the cluster that redis.cluster names. */
  static void verifyClusterMaster(UnifiedJedis node, boolean requireNoeviction, String where) {
    verify(node, requireNoeviction, where, true);
  }

  private static void verify(UnifiedJedis redis, boolean requireNoeviction, String where,
      boolean asCluster) {
    Map<String, String> info = info(redis, "server");
    String version = info.getOrDefault("redis_version", "0");
    if (!atLeast(version, 6, 2)) {
      throw new UnfitServerException(where + " runs Redis " + version + ", too old: delayq needs "
          + "6.2 or later (for BLMOVE, the atomic claim that keeps in-flight jobs safe)");
    }
    info.putAll(info(redis, "cluster"));
    if (!asCluster) {
      refuseClusterNode(info, where);
    }
    info.putAll(info(redis, "replication"));
    if (!"master".equals(info.getOrDefault("role", "master"))) {
      throw new UnfitServerException(where + " is a replica (of " + info.get("master_host") + ":"
          + info.get("master_port") + "): delayq must write to the master. Point redis.url at the "
          + "master, or set redis.sentinels and redis.masterName to follow it through failovers");
    }
    info.putAll(info(redis, "memory"));
    String policy = info.getOrDefault("maxmemory_policy", "noeviction");
    if (!policy.equals("noeviction")) {
      String message = "Redis maxmemory-policy is " + policy + ": when memory runs out it would "
          + "silently delete jobs. Set maxmemory-policy noeviction";
      if (requireNoeviction) {
        throw new UnfitServerException(message
            + " (or set redis.requireNoeviction: false to run anyway)");
      }
      log.warn("{} (running anyway: redis.requireNoeviction is false)", message);
    }
  }

  /**
   * Throws {@link UnfitServerException} when a server reached as a plain redis.url is a Cluster
   * node, naming redis.cluster; the one check of {@link #verify} that a short-lived tool (the CLI)
   * makes before every command.
   */
  public static void verifyNotClusterNode(UnifiedJedis redis, String where) {
    refuseClusterNode(info(redis, "cluster"), where);
  }

  private static void refuseClusterNode(Map<String, String> info, String where) {
    if ("1".equals(info.get("cluster_enabled"))) {
      throw new UnfitServerException(where + " is a Redis Cluster node (cluster_enabled:1): as a "
          + "plain redis.url it would answer MOVED for every key outside its own slots. Give the "
          + "cluster as redis.cluster (DELAYQ_REDIS_CLUSTER), a comma-separated host:port list of "
          + "its nodes, and leave the url empty or carrying only the scheme and credentials");
    }
  }

  static boolean atLeast(String version, int major, int minor) {
    String[] parts = version.split("\\.");
    try {
      int ma = Integer.parseInt(parts[0]);
      int mi = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
      return ma > major || (ma == major && mi >= minor);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** INFO of one section as a map. */
  public static Map<String, String> info(UnifiedJedis redis, String section) {
    return parseInfo(redis.sendCommand(Protocol.Command.INFO, section));
  }

  /** An INFO reply as a map, field by field. */
  public static Map<String, String> parseInfo(Object reply) {
    String text = reply instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(reply);
    Map<String, String> out = new HashMap<>();
    for (String line : text.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        out.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return out;
  }
}
