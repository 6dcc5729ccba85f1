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
public final class SchedulerCalls {
  /** What a release of a lease publishes on its shard's wake channel: standbys look at the lease at once. */
  public static final String LEASE_RELEASED = "released";

  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;

  SchedulerCalls(UnifiedJedis redis, Keys keys, Scripts scripts) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = scripts;
  }

  /**
   * makeAllDue.lua on shard 0: makes up to {@code most} delayed jobs due now and moves them to
   * ready, due or not (the test kit's "run everything now"; never the scheduler's). Returns how
   * many it moved ({@code most}: call again).
   */
  public int makeAllDue(int most) {
    Keys shard = keys.shard(0);
    return ((Long) scripts.eval(Script.MAKE_ALL_DUE, List.of(shard.delayed(), shard.jobs(), shard.ready()),
        List.of(Integer.toString(most)))).intValue();
  }

  /** Forwards shard 0 (the whole queue when it has one shard). */
  public Forwarded moveDueToReady(int limit) {
    return moveDueToReady(0, limit);
  }

  /** Moves up to {@code limit} due ids of one shard from its delayed to its ready. */
  public Forwarded moveDueToReady(int shard, int limit) {
    return moveDueToReady(shard, limit, 0);
  }

  /**
   * Moves up to {@code limit} ids of one shard that are due at least {@code graceMs} ago (a hot
   * standby's pass: what the lease holder left overdue) from its delayed to its ready.
   */
  public Forwarded moveDueToReady(int shard, int limit, long graceMs) {
    Scripts.Call call = moveDueToReadyCall(shard, limit, graceMs);
    return forwarded(scripts.eval(Script.MOVE_DUE_TO_READY, call.keys(), call.args()));
  }

  /**
   * As {@link #moveDueToReady(int, int, long)} on several shards in one round trip (a pipeline; on
   * a cluster each call goes to the master of its shard), the answers in the order of
   * {@code shards}: a shard that falls due beside others does not wait for their calls. The first
   * failure is thrown; {@link #moveDueToReadyEach} says it shard by shard.
   */
  public List<Forwarded> moveDueToReady(List<Integer> shards, int limit, long graceMs) {
    return valuesOrThrow(moveDueToReadyEach(shards, limit, graceMs));
  }

  /**
   * As {@link #moveDueToReady(List, int, long)}, each shard with its own reply: on a cluster whose
   * master of one shard is lost, the others' forwards are done and answered all the same.
   */
  public List<ShardReply<Forwarded>> moveDueToReadyEach(List<Integer> shards, int limit, long graceMs) {
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
  /**
   * Runs {@code work} (several calls that wait on one another, such as one shard's recovery) for
   * each of {@code shards}, each answered alone. On a Redis Cluster, for a queue of several
   * shards, each master's shards go on that master's own thread ({@link NodeFanOut#runEachApart}): a
   * master that does not answer within 200 ms leaves its shards' work running, answered
   * {@link NodeInFlightException}, while the other masters' answers are used. Elsewhere (one
   * shard, or one server) the work runs here, shard after shard, as it always did.
   */
  public <T> List<ShardReply<T>> eachShardApart(List<Integer> shards, IntFunction<T> work) {
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

  /** Blocks up to {@code timeoutSeconds} for a wake token; true when one came. */
  public boolean awaitWake(double timeoutSeconds) {
    return awaitWake(0, timeoutSeconds);
  }

  /** Blocks up to {@code timeoutSeconds} for a wake token of one shard; true when one came. */
  public boolean awaitWake(int shard, double timeoutSeconds) {
    return redis.blpop(timeoutSeconds, keys.shard(shard).wake()) != null;
  }

  /**
   * Subscribes {@code listener} to the wake channels of all shards, blocking for as long as the
   * subscription lasts (until it is unsubscribed or the connection drops). Each message names the
   * channel, which {@link #shardOfWakeChannel} turns back into its shard.
   */
  public void subscribeToWakes(JedisPubSub listener) {
    String[] channels = new String[keys.shards()];
    for (int s = 0; s < channels.length; s++) {
      channels[s] = keys.shard(s).wakeChannel();
    }
    redis.subscribe(listener, channels);
  }

  /** The shard whose wake channel {@code channel} is, or -1. */
  public int shardOfWakeChannel(String channel) {
    for (int s = 0; s < keys.shards(); s++) {
      if (keys.shard(s).wakeChannel().equals(channel)) {
        return s;
      }
    }
    return -1;
  }

  public boolean holdLease(String owner, long ttlMs) {
    return holdLease(0, owner, ttlMs);
  }

  /** Takes or renews the lease of one shard (with one shard: the leader lease). */
  public boolean holdLease(int shard, String owner, long ttlMs) {
    return ((Long) scripts.eval(Script.HOLD_LEASE, List.of(keys.shard(shard).leader()),
        List.of(owner, Long.toString(ttlMs)))) == 1L;
  }

  /**
   * Takes or renews the leases of {@code shards} in one round trip, each shard answered alone
   * (true: held), so that one shard's lost master fails only its own renewal.
   */
  public List<ShardReply<Boolean>> holdLeases(List<Integer> shards, String owner, long ttlMs) {
    return eachShard(Script.HOLD_LEASE, shards, s -> new Scripts.Call(List.of(keys.shard(s).leader()),
        List.of(owner, Long.toString(ttlMs))), reply -> (Long) reply == 1L);
  }

  public boolean releaseLease(String owner) {
    return releaseLease(0, owner);
  }

  public boolean releaseLease(int shard, String owner) {
    return ((Long) scripts.eval(Script.RELEASE_LEASE, List.of(keys.shard(shard).leader(),
        keys.shard(shard).wakeChannel()), List.of(owner))) == 1L;
  }

  /**
   * Gives up the leases of {@code shards} in one round trip, each answered alone (true: it was
   * held and is released): on a cluster each master's on its own thread, so that a hung master
   * holds up only its own shards' releases (the lease lapses by itself there).
   */
  public List<ShardReply<Boolean>> releaseLeases(List<Integer> shards, String owner) {
    return eachShard(Script.RELEASE_LEASE, shards, s -> new Scripts.Call(List.of(keys.shard(s).leader(),
        keys.shard(s).wakeChannel()), List.of(owner)), reply -> (Long) reply == 1L);
  }

  /**
   * Registers scheduler {@code owner} as alive for {@code ttlMs} and returns how many schedulers
   * are alive now (itself included): the shards are shared out among them.
   */
  public int schedulersAlive(String owner, long ttlMs) {
    // sent as one shard's call is (no retries with backoff by the client while its node is lost)
    // (only a queue of several shards beats; its node may hang like any shard's: see evalEachApart)
    NodeFanOut.Outcome o = scripts.fanOut().evalEachApart(Script.SCHEDULER_BEAT,
        List.of(new Scripts.Call(List.of(keys.schedulers()), List.of(owner, Long.toString(ttlMs))))).get(0);
    if (o.failure() != null) {
      throw o.failure();
    }
    return ((Long) o.reply()).intValue();
  }

  /**
   * Takes scheduler {@code owner} off the list of live ones (it is stopping). On a cluster on its
   * master's thread: a master that hangs leaves it there until its beat's TTL ends (the others
   * share the shards out among themselves a little later), instead of holding the stop until
   * {@code redis.socketTimeout} and the client's retries.
   */
  public void schedulerGone(String owner) {
    List<Long> gone = scripts.fanOut().runEachApart(List.of(keys.schedulers()), i -> redis.zrem(keys.schedulers(), owner),
        Long[]::new, inFlight -> 0L, failed -> 0L);
    if (gone == null) {
      redis.zrem(keys.schedulers(), owner);
    }
  }

  /**
   * Frees up to {@code limit} caller-chosen ids whose retention window has passed, oldest first;
   * returns how many (the caller calls again while it equals the limit).
   */
  public int forgetEnded(int limit) {
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

  /** As {@link #forgetEnded} on each of {@code shards} in one round trip, each answered alone (ids freed). */
  public List<ShardReply<Integer>> forgetEndedEach(List<Integer> shards, int limit) {
    return eachShard(Script.FORGET_ENDED, shards, s -> new Scripts.Call(
        List.of(keys.shard(s).ended(), keys.shard(s).endedExpiry()), List.of(Integer.toString(limit), keys.shard(s).flowBase())),
        reply -> ((Long) reply).intValue());
  }
}
