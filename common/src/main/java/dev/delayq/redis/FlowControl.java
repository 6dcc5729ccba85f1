package dev.delayq.redis;

import dev.delayq.redis.Resumed;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * The pause of a queue or a job type, shard by shard: a field of that shard's paused HASH, which
 * its claims read (include/flow.lua) to hold the jobs they take, and resume.lua, which lifts it and
 * gives the held jobs back to ready in bounded batches.
 */
final class FlowControl {
  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;

  FlowControl(UnifiedJedis redis, Keys keys, Scripts scripts) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = scripts;
  }

  Resumed resume(String scope, int most) {
    return resume(0, scope, most);
  }

  Resumed resume(int shard, String scope, int most) {
    Keys keys = this.keys.shard(shard);
    List<?> r = (List<?>) scripts.eval(Script.RESUME, List.of(keys.paused(), keys.heldIndex(), keys.ready()),
        List.of(scope, keys.flowBase(), Integer.toString(most)));
    return new Resumed((Long) r.get(0) == 1, ((Long) r.get(1)).intValue());
  }

  boolean pause(int shard, String scope) {
    Keys keys = this.keys.shard(shard);
    String since = Long.toString(RedisTime.nowMs(redis, keys.paused()));
    return redis.hsetnx(keys.paused(), scope, since) == 1;
  }
}
