package dev.delayq.redis;

import dev.delayq.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import redis.clients.jedis.UnifiedJedis;

/**
 * Jobs that wait for a worker with their handler, shard by shard. A worker that claims a job it
 * has no handler for leaves it in its type's {@code nohandler:<type>} set, uncharged
 * ({@link #leave}); every worker announces the types it runs in {@code handlers} with each
 * heartbeat and brings the waiting jobs of those types back to ready ({@link #announce}); the
 * scheduler's recoverer dead-letters the jobs of a type no live worker announced for
 * {@code queue.handlerWait} ({@link #expire}). The claim itself never looks: only a miss costs.
 */
public final class HandlerWait {
  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;

  public HandlerWait(UnifiedJedis redis, Keys keys, Scripts scripts) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = scripts;
  }

  /**
   * Leaves {@code consumer}'s delivery of a job of {@code type} to a worker that has its handler:
   * out of the in-flight list, into the type's waiting set, its attempt not counted. False when
   * fenced (the delivery is no longer the consumer's).
   */
  public boolean leave(String consumer, Delivery delivery, String type) {
    Keys keys = this.keys.shardOf(delivery.id());
    return (Long) scripts.eval(Script.AWAIT_HANDLER,
        List.of(keys.inFlight(consumer), keys.noHandlerIndex(), keys.noHandler(type)),
        List.of(delivery.element(), type)) == 1L;
  }

  /** What {@link #announce} did over every shard: jobs brought back to ready, and jobs of the types still waiting. */
  public record Announced(int broughtBack, long stillWaiting) {}

  /**
   * Says that a live worker runs {@code types} for {@code ttl}, in every shard, and brings up to
   * {@code most} waiting jobs of those types per shard back to ready (the longest-waiting first).
   */
  public Announced announce(List<String> types, Duration ttl, int most) {
    int brought = 0;
    long left = 0;
    for (Keys shard : keys.allShards()) {
      List<String> args = new ArrayList<>(types.size() + 3);
      args.add(Long.toString(ttl.toMillis()));
      args.add(Integer.toString(most));
      args.add(shard.flowBase());
      args.addAll(types);
      List<?> r = (List<?>) scripts.eval(Script.HANDLERS_BEAT,
          List.of(shard.handlers(), shard.noHandlerIndex(), shard.ready()), args);
      brought += ((Long) r.get(0)).intValue();
      left += (Long) r.get(1);
    }
    return new Announced(brought, left);
  }

  /**
   * Dead-letters up to {@code most} jobs of shard {@code shard} that waited longer than
   * {@code wait} for a type no live worker announces; returns how many (call again while it equals
   * {@code most}).
   */
  public int expire(int shard, Duration wait, int most) {
    Keys keys = this.keys.shard(shard);
    return ((Long) scripts.eval(Script.EXPIRE_NO_HANDLER,
        List.of(keys.handlers(), keys.noHandlerIndex(), keys.jobs(), keys.dead(), keys.stats()),
        List.of(Long.toString(wait.toMillis()), Integer.toString(most), keys.flowBase(),
            Durations.format(wait)))).intValue();
  }

  /** The jobs waiting for a handler, per type, summed over the shards (empty when none). */
  public Map<String, Long> waiting() {
    Map<String, Long> out = new TreeMap<>();
    for (Keys shard : keys.allShards()) {
      for (String type : redis.smembers(shard.noHandlerIndex())) {
        long n = redis.zcard(shard.noHandler(type));
        if (n > 0) {
          out.merge(type, n, Long::sum);
        }
      }
    }
    return out;
  }

  /** Whether {@code id}'s job waits for a handler of {@code type}. */
  public boolean isWaiting(String id, String type) {
    return redis.zscore(keys.shardOf(id).noHandler(type), id) != null;
  }
}
