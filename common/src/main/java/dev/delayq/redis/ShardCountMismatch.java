package dev.delayq.redis;

/** Thrown at start when queue.shards differs from the shard count the queue was created with. */
public final class ShardCountMismatch extends IllegalArgumentException {
  ShardCountMismatch(String message) {
    super(message);
  }
}
