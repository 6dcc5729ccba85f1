package dev.delayq.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Runs an operator's change on every shard of a queue, one call per shard in shard order. A shard
 * whose call fails does not stop the others (an operator pausing during an incident wants every
 * shard that answers paused now), and the change then fails as a whole with a
 * {@link ShardsNotDoneException} naming the shards not done. Each shard's change must be
 * idempotent: running the whole change again is how it is finished.
 */
final class EachShard {
  private EachShard() {}

  /**
   * {@code change} applied to shard 0, 1, … of {@code keys}' queue; its results in shard order.
   * With one shard a failure is thrown as it came (the outage it is, with nothing half done).
   */
  static <T> List<T> apply(Keys keys, String what, IntFunction<T> change) {
    if (keys.shards() == 1) {
      return List.of(change.apply(0));
    }
    List<T> results = new ArrayList<>(keys.shards());
    Map<Integer, JedisException> failed = new LinkedHashMap<>();
    for (int shard = 0; shard < keys.shards(); shard++) {
      try {
        results.add(change.apply(shard));
      } catch (JedisException e) {
        failed.put(shard, e);
      }
    }
    if (!failed.isEmpty()) {
      throw new ShardsNotDoneException(what, keys.shards(), failed);
    }
    return results;
  }
}
