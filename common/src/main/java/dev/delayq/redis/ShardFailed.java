package dev.delayq.redis;

import redis.clients.jedis.exceptions.JedisException;

/**
 * A call of a sharded claim to one shard failed (that shard's node lost, or its replicas did
 * not confirm): {@link #shard()} says which, so that the caller can hold that shard back alone;
 * {@link #ack()} is the acknowledgement folded into a call that had worked before it.
 */
public final class ShardFailed extends JedisException {
  private final int shard;
  private final transient Ack ack;

  ShardFailed(int shard, Ack ack, JedisException cause) {
    super("shard " + shard + ": " + cause.getMessage(), cause);
    this.shard = shard;
    this.ack = ack;
  }

  public int shard() {
    return shard;
  }

  public Ack ack() {
    return ack;
  }
}
