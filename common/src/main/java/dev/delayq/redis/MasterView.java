package dev.delayq.redis;

import redis.clients.jedis.HostAndPort;

/**
 * Where a process's writes go, as its {@link RedisConnection} sees it: one followed master
 * ({@link FollowedMaster}: standalone or Sentinel) or the masters of a cluster
 * ({@link ClusterTopology}).
 */
interface MasterView {
  /** The master's address now (for a cluster: the first one that serves slots). */
  HostAndPort master();

  /** Grows whenever the master changed (a failover). */
  long epoch();

  /** A server answered as a replica: finds the master again; true when a retry may succeed. */
  boolean masterLost(String reason);
}
