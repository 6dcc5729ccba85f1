package dev.delayq.redis;

import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A call that was not sent because its cluster node has not yet answered a call sent to it
 * before (it hangs: SIGSTOP, a partition that drops packets). Nothing was done: the caller holds
 * the call's shard back and tries again once the node answers. Not a failure of the shard either:
 * the call before may still run, and its outcome is not known until the node answers or
 * {@code redis.socketTimeout} ends the read.
 */
public final class NodeInFlightException extends JedisException {
  NodeInFlightException(HostAndPort node) {
    super("Redis Cluster node " + node + " has not answered the call sent to it before; not sent again meanwhile");
  }

  /** One per node, made once: a hung node is asked about every few ms, and a stack trace would say nothing. */
  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }
}
