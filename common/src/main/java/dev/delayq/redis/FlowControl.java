package dev.delayq.redis;

import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * The pause of a queue or a job type, shard by shard: a field of that shard's paused HASH, which
 * its claims read (include/flow.lua) to hold the jobs they take, and resume.lua, which lifts it and
 * gives the held jobs back to ready in bounded batches.
 */
public final class FlowControl {
  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;

  FlowControl(UnifiedJedis redis, Keys keys, Scripts scripts) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = scripts;
  }

  /**
   * Lifts the pause of {@code scope} ({@code *}: the whole queue, else a job type) and gives back
   * up to {@code most} of the jobs held meanwhile; call again while it gives back {@code most}.
   */
  public Resumed resume(String scope, int most) {
    return resume(0, scope, most);
  }

  /**
   * As {@link #resume(String, int)}, in shard {@code shard} alone: its pause and its held lists
   * (a claim holds a job in its own shard). A sharded queue is resumed shard by shard.
   */
  public Resumed resume(int shard, String scope, int most) {
    Keys keys = this.keys.shard(shard);
    List<?> r = (List<?>) scripts.eval(Script.RESUME, List.of(keys.paused(), keys.heldIndex(), keys.ready()),
        List.of(scope, keys.flowBase(), Integer.toString(most)));
    return new Resumed((Long) r.get(0) == 1, ((Long) r.get(1)).intValue());
  }

  /**
   * Pauses {@code scope} ({@code *}: the whole queue, else a job type) in shard {@code shard}, the
   * claims of that shard holding its jobs from now on; since when is that shard's server's clock.
   * False when it was paused there already (its since is kept), so a second call changes nothing.
   */
  public boolean pause(int shard, String scope) {
    Keys keys = this.keys.shard(shard);
    String since = Long.toString(RedisTime.nowMs(redis, keys.paused()));
    return redis.hsetnx(keys.paused(), scope, since) == 1;
  }
}
