package dev.delayq.redis;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Consumers as the queue knows them: their heartbeats, which of them expired, and taking back
 * the deliveries of one (requeueInFlight.lua, in bounded batches). {@link RedisBroker} is the door.
 */
public final class ConsumerRegistry {
  /**
   * Deliveries one requeueInFlight.lua call takes back: each costs a few commands and a record
   * read, so 250 keep a call near 2 ms (1,000 took 10 ms on a busy host); Java loops.
   */
  static final int REQUEUE_BATCH = 250;

  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;
  private final String idRetentionMs;

  ConsumerRegistry(UnifiedJedis redis, Keys keys, Scripts scripts, String idRetentionMs) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = scripts;
    this.idRetentionMs = idRetentionMs;
  }

  /** Consumers of shard 0 whose heartbeat expiry is at or before {@code redisNowMs}. */
  public List<String> expiredConsumers(long redisNowMs, int limit) {
    return expiredConsumers(0, redisNowMs, limit);
  }

  /** Consumers of one shard whose heartbeat expiry is at or before {@code redisNowMs}. */
  public List<String> expiredConsumers(int shard, long redisNowMs, int limit) {
    return redis.zrangeByScore(keys.shard(shard).consumers(), "-inf", Long.toString(redisNowMs), 0, limit);
  }

  /** All registered consumers, alive or not, of every shard (each once). */
  public List<String> consumers() {
    if (keys.shards() == 1) {
      return redis.zrange(keys.consumers(), 0, -1);
    }
    Set<String> all = new LinkedHashSet<>();
    for (Keys shard : keys.allShards()) {
      all.addAll(redis.zrange(shard.consumers(), 0, -1));
    }
    return new ArrayList<>(all);
  }

  /**
   * Takes back every delivery of {@code consumerId} (in bounded batches): the one whose handler
   * was running is charged an attempt and a lost delivery (to dead past its attempts or the
   * poison-pill limit), the others go back to the front of ready uncharged, in claim order.
   */
  public Requeued requeueInFlight(String consumerId, RequeueMode mode, String reason, int poisonAt) {
    Requeued sum = null;
    for (int shard = 0; shard < keys.shards(); shard++) {
      sum = plus(sum, requeue(keys.shard(shard), consumerId, mode, reason, poisonAt, "", List.of()));
    }
    return sum;
  }

  /** As {@link #requeueInFlight(String, RequeueMode, String, int)}, on one shard only. */
  public Requeued requeueInFlight(int shard, String consumerId, RequeueMode mode, String reason, int poisonAt) {
    return requeue(keys.shard(shard), consumerId, mode, reason, poisonAt, "", List.of());
  }

  private static Requeued plus(Requeued a, Requeued b) {
    return a == null ? b : new Requeued(a.uncharged() + b.uncharged(), a.charged() + b.charged(),
        a.deadLettered() + b.deadLettered(), a.consumerAlive() || b.consumerAlive(), a.acknowledged() + b.acknowledged());
  }

  /**
   * As {@link #requeueInFlight(String, RequeueMode, String, int)}, but with what the worker's
   * crash record says was running (empty: nothing), which decides over the running mark, and the
   * deliveries it says had finished (their handler returned done): those are acknowledged.
   */
  public Requeued requeueInFlight(String consumerId, RequeueMode mode, String reason, int poisonAt,
      Optional<String> recordedRunning, List<String> recordedFinished) {
    if (keys.shards() == 1) {
      return requeue(keys, consumerId, mode, reason, poisonAt, recordedRunning.orElse("|"), recordedFinished);
    }
    // each delivery the crash record names is in its id's shard; it says nothing ran in the others
    int runningShard = recordedRunning.map(e -> keys.shardIndexOf(Delivery.idOf(e))).orElse(-1);
    Requeued sum = null;
    for (int shard = 0; shard < keys.shards(); shard++) {
      int s = shard;
      List<String> finished = recordedFinished.stream()
          .filter(e -> keys.shardIndexOf(Delivery.idOf(e)) == s).toList();
      sum = plus(sum, requeue(keys.shard(shard), consumerId, mode, reason, poisonAt,
          shard == runningShard ? recordedRunning.get() : "|", finished));
    }
    return sum;
  }

  private Requeued requeue(Keys keys, String consumerId, RequeueMode mode, String reason, int poisonAt,
      String recorded, List<String> finished) {
    int uncharged = 0;
    int charged = 0;
    int dead = 0;
    int acked = 0;
    List<String> keyList = List.of(keys.inFlight(consumerId), keys.consumers(), keys.jobs(),
        keys.ready(), keys.dead(), keys.running(), keys.ended(), keys.endedExpiry());
    List<String> args = new ArrayList<>(List.of(consumerId, Integer.toString(REQUEUE_BATCH), mode.arg, reason, Integer.toString(poisonAt),
        recorded, idRetentionMs));
    args.addAll(finished);
    // a workflow's job that ends here is settled from these (include/workflow.lua)
    args.addAll(List.of("--", keys.flowBase(), Workflows.keepMs(idRetentionMs)));
    while (true) {
      List<?> r = (List<?>) scripts.eval(Script.REQUEUE_IN_FLIGHT, keyList, args);
      long first = (Long) r.get(0);
      if (first < 0) {
        return new Requeued(uncharged, charged, dead, true, acked);
      }
      uncharged += (int) first;
      charged += ((Long) r.get(1)).intValue();
      dead += ((Long) r.get(2)).intValue();
      acked += ((Long) r.get(4)).intValue();
      if ((Long) r.get(3) == 0L) {
        return new Requeued(uncharged, charged, dead, false, acked);
      }
    }
  }

  public void heartbeat(List<String> consumerIds, long ttlMs) {
    List<String> args = new ArrayList<>(consumerIds.size() + 1);
    args.add(Long.toString(ttlMs));
    args.addAll(consumerIds);
    // a consumer may hold deliveries in any shard: it is alive in every one
    if (keys.shards() == 1 || !scripts.fanOut().readsApart()) {
      for (Keys shard : keys.allShards()) {
        scripts.eval(Script.HEARTBEAT, List.of(shard.consumers()), args);
      }
      return;
    }
    // on a cluster each master's shards on its own thread, each answered alone: one after another,
    // a lost or hung master of shard 0 kept every other shard from beating (the call threw, or
    // waited for redis.socketTimeout), and past the TTL the scheduler took back the running jobs
    // of consumers alive and well in those shards, to run a second time
    List<Scripts.Call> calls = new ArrayList<>(keys.shards());
    for (Keys shard : keys.allShards()) {
      calls.add(new Scripts.Call(List.of(shard.consumers()), args));
    }
    JedisException failed = null;
    for (NodeFanOut.Outcome o : scripts.fanOut().evalEachApart(Script.HEARTBEAT, calls, true)) {
      if (o.failure() != null && (failed == null || failed instanceof NodeInFlightException)) {
        failed = o.failure();
      }
    }
    if (failed != null) {
      throw failed; // the other shards beat: what failed is said (and tried again) as any failed beat
    }
  }
}
