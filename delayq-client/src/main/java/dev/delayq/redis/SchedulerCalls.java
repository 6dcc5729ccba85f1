package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.IntFunction;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The scheduler's per-shard calls: forwarding due jobs, the leases and scheduler beats, the wake
 * tokens, and trimming ended ids; each shard's call answered alone where several go at once
 * ({@link NodeFanOut}). {@link RedisBroker} is their door and states what each does.
 */
final class SchedulerCalls {
  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;

  SchedulerCalls(UnifiedJedis redis, Keys keys, Scripts scripts) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = scripts;
  }

  Forwarded moveDueToReady(int limit) {
    return moveDueToReady(0, limit);
  }

  Forwarded moveDueToReady(int shard, int limit) {
    return moveDueToReady(shard, limit, 0);
  }

  Forwarded moveDueToReady(int shard, int limit, long graceMs) {
    Scripts.Call call = moveDueToReadyCall(shard, limit, graceMs);
    return forwarded(scripts.eval(Script.MOVE_DUE_TO_READY, call.keys(), call.args()));
  }

  List<Forwarded> moveDueToReady(List<Integer> shards, int limit, long graceMs) {
    return valuesOrThrow(moveDueToReadyEach(shards, limit, graceMs));
  }

  List<ShardReply<Forwarded>> moveDueToReadyEach(List<Integer> shards, int limit, long graceMs) {
    return eachShard(Script.MOVE_DUE_TO_READY, shards, s -> moveDueToReadyCall(s, limit, graceMs),
        SchedulerCalls::forwarded);
  }

  private <T> List<ShardReply<T>> eachShard(Script script, List<Integer> shards,
      IntFunction<Scripts.Call> call, Function<Object, T> decode) {
    if (shards.isEmpty()) {
      return List.of();
    }
    List<Scripts.Call> calls = new ArrayList<>(shards.size());
    for (int shard : shards) {
      calls.add(call.apply(shard));
    }
    // several shards: each node's calls apart, so that a hung node holds up only its own shards
    List<NodeFanOut.Outcome> outcomes = keys.shards() > 1 ? scripts.fanOut().evalEachApart(script, calls) : scripts.fanOut().evalEach(script, calls);
    List<ShardReply<T>> out = new ArrayList<>(shards.size());
    for (int i = 0; i < shards.size(); i++) {
      NodeFanOut.Outcome o = outcomes.get(i);
      out.add(o.failure() != null ? new ShardReply<>(shards.get(i), null, o.failure())
          : new ShardReply<>(shards.get(i), decode.apply(o.reply()), null));
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  <T> List<ShardReply<T>> eachShardApart(List<Integer> shards, IntFunction<T> work) {
    List<ShardReply<T>> apart = keys.shards() > 1 ? scripts.fanOut().runEachApart(
        shards.stream().map(s -> keys.shard(s).consumers()).toList(),
        i -> new ShardReply<>(shards.get(i), work.apply(shards.get(i)), null), ShardReply[]::new,
        inFlight -> new ShardReply<>(-1, null, inFlight), failed -> new ShardReply<>(-1, null, failed)) : null;
    List<ShardReply<T>> out = new ArrayList<>(shards.size());
    for (int i = 0; i < shards.size(); i++) {
      int shard = shards.get(i);
      ShardReply<T> r = apart == null ? inline(shard, work) : apart.get(i);
      out.add(r.shard() == shard ? r : new ShardReply<>(shard, null, r.failure()));
    }
    return out;
  }

  private static <T> ShardReply<T> inline(int shard, IntFunction<T> work) {
    try {
      return new ShardReply<>(shard, work.apply(shard), null);
    } catch (JedisException e) {
      return new ShardReply<>(shard, null, e);
    }
  }

  private static <T> List<T> valuesOrThrow(List<ShardReply<T>> replies) {
    List<T> out = new ArrayList<>(replies.size());
    for (ShardReply<T> r : replies) {
      if (r.failure() != null) {
        throw r.failure();
      }
      out.add(r.value());
    }
    return out;
  }

  private Scripts.Call moveDueToReadyCall(int shard, int limit, long graceMs) {
    Keys keys = this.keys.shard(shard);
    return new Scripts.Call(List.of(keys.delayed(), keys.ready(), keys.jobs(), keys.dead()),
        List.of(Integer.toString(limit), Long.toString(graceMs)));
  }

  private static Forwarded forwarded(Object reply) {
    List<?> r = (List<?>) reply;
    long next = (Long) r.get(1);
    return new Forwarded(((Long) r.get(0)).intValue(),
        next < 0 ? OptionalLong.empty() : OptionalLong.of(next), (Long) r.get(3));
  }

  boolean awaitWake(double timeoutSeconds) {
    return awaitWake(0, timeoutSeconds);
  }

  boolean awaitWake(int shard, double timeoutSeconds) {
    return redis.blpop(timeoutSeconds, keys.shard(shard).wake()) != null;
  }

  void subscribeToWakes(JedisPubSub listener) {
    String[] channels = new String[keys.shards()];
    for (int s = 0; s < channels.length; s++) {
      channels[s] = keys.shard(s).wakeChannel();
    }
    redis.subscribe(listener, channels);
  }

  int shardOfWakeChannel(String channel) {
    for (int s = 0; s < keys.shards(); s++) {
      if (keys.shard(s).wakeChannel().equals(channel)) {
        return s;
      }
    }
    return -1;
  }

  boolean holdLease(String owner, long ttlMs) {
    return holdLease(0, owner, ttlMs);
  }

  boolean holdLease(int shard, String owner, long ttlMs) {
    return ((Long) scripts.eval(Script.HOLD_LEASE, List.of(keys.shard(shard).leader()),
        List.of(owner, Long.toString(ttlMs)))) == 1L;
  }

  List<ShardReply<Boolean>> holdLeases(List<Integer> shards, String owner, long ttlMs) {
    return eachShard(Script.HOLD_LEASE, shards, s -> new Scripts.Call(List.of(keys.shard(s).leader()),
        List.of(owner, Long.toString(ttlMs))), reply -> (Long) reply == 1L);
  }

  boolean releaseLease(String owner) {
    return releaseLease(0, owner);
  }

  boolean releaseLease(int shard, String owner) {
    return ((Long) scripts.eval(Script.RELEASE_LEASE, List.of(keys.shard(shard).leader(),
        keys.shard(shard).wakeChannel()), List.of(owner))) == 1L;
  }

  List<ShardReply<Boolean>> releaseLeases(List<Integer> shards, String owner) {
    return eachShard(Script.RELEASE_LEASE, shards, s -> new Scripts.Call(List.of(keys.shard(s).leader(),
        keys.shard(s).wakeChannel()), List.of(owner)), reply -> (Long) reply == 1L);
  }

  int schedulersAlive(String owner, long ttlMs) {
    // sent as one shard's call is (no retries with backoff by the client while its node is lost)
    // (only a queue of several shards beats; its node may hang like any shard's: see evalEachApart)
    NodeFanOut.Outcome o = scripts.fanOut().evalEachApart(Script.SCHEDULER_BEAT,
        List.of(new Scripts.Call(List.of(keys.schedulers()), List.of(owner, Long.toString(ttlMs))))).get(0);
    if (o.failure() != null) {
      throw o.failure();
    }
    return ((Long) o.reply()).intValue();
  }

  void schedulerGone(String owner) {
    List<Long> gone = scripts.fanOut().runEachApart(List.of(keys.schedulers()), i -> redis.zrem(keys.schedulers(), owner),
        Long[]::new, inFlight -> 0L, failed -> 0L);
    if (gone == null) {
      redis.zrem(keys.schedulers(), owner);
    }
  }

  int forgetEnded(int limit) {
    // with several shards: each shard's oldest; the most any one freed, so the caller calls
    // again while some shard had a full chunk
    List<Integer> all = new ArrayList<>(keys.shards());
    for (int s = 0; s < keys.shards(); s++) {
      all.add(s);
    }
    int most = 0;
    for (int freed : valuesOrThrow(forgetEndedEach(all, limit))) {
      most = Math.max(most, freed);
    }
    return most;
  }

  List<ShardReply<Integer>> forgetEndedEach(List<Integer> shards, int limit) {
    return eachShard(Script.FORGET_ENDED, shards, s -> new Scripts.Call(
        List.of(keys.shard(s).ended(), keys.shard(s).endedExpiry()), List.of(Integer.toString(limit))),
        reply -> ((Long) reply).intValue());
  }
}
