package dev.delayq.redis;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Calls scripts by SHA. All are loaded once at start; when Redis has lost its script cache
 * (a restart, SCRIPT FLUSH) the one call that hits NOSCRIPT loads the script and tries again.
 *
 * <p>With {@code redis.replicaAcks} set, every call of a script that changes a job's state is
 * followed by {@code WAIT replicas timeout} in the same pipeline, so on the same connection
 * (WAIT covers the writes of the connection it is sent on), and fewer confirmations throw a
 * {@link ReplicaAcksException}. A READONLY answer (the server turned replica) tells the
 * connection to find the master; the call is tried once more when it did.
 */
public final class Scripts {
  /**
   * Scripts whose writes are not waited for: losing them in a failover costs no job. A lost
   * heartbeat, lease or scheduler beat is renewed within seconds; a lost trim of ended ids leaves
   * them to the next trim (an id past its window is free to enqueue anyway); a lost forward leaves the job in delayed on the
   * new master, to be forwarded again, and the claims that took it from ready on the old one
   * were waited for, so nothing ran on the strength of it. Every other script is waited for,
   * start.lua and ack.lua included: they acknowledge, and a lost acknowledgement runs a finished
   * job again. (The running marks they also set matter only when a crash is recovered without
   * the worker's crash record; a mark lost with a failover can at worst misplace that one charge.)
   */
  private static final Set<Script> NOT_WAITED = EnumSet.of(Script.HEARTBEAT, Script.HOLD_LEASE,
      Script.RELEASE_LEASE, Script.SCHEDULER_BEAT, Script.FORGET_ENDED, Script.MOVE_DUE_TO_READY);

  private final UnifiedJedis redis;
  private final ReplicaAcks acks;
  private final RedisConnection.MasterFinder masterFinder;
  private final NodeFanOut fanOut;

  /** Scripts on a bare client: no replica acks, no master to find. */
  public Scripts(UnifiedJedis redis) {
    this(redis, ReplicaAcks.NONE, reason -> false);
  }

  public Scripts(RedisConnection connection) {
    this(connection.client(), connection.replicaAcks(), connection::masterLost);
  }

  private Scripts(UnifiedJedis redis, ReplicaAcks acks, RedisConnection.MasterFinder masterFinder) {
    this.redis = redis;
    this.acks = acks;
    this.masterFinder = masterFinder;
    this.fanOut = new NodeFanOut(redis, this, masterFinder, NodeLanes.of(redis));
  }

  /** The calls of many shards at once, each failing alone ({@link NodeFanOut}). */
  NodeFanOut fanOut() {
    return fanOut;
  }

  /**
   * Loads every script, so the first calls go straight through; on a cluster into every master
   * (a script runs on the master of its keys' slot, and a reshard may move a slot to any of them).
   */
  public void loadAll() {
    if (redis instanceof RedisClusterClient cluster) {
      new ClusterTopology("scripts", cluster).onEachMaster((at, node) -> {
        for (Script s : Script.values()) {
          node.scriptLoad(s.source());
        }
        return null;
      });
      return;
    }
    for (Script s : Script.values()) {
      redis.scriptLoad(s.source());
    }
  }

  /**
   * Loads {@code script} where a call with {@code sampleKey} as its first key runs (on a cluster
   * the master of its slot; else the server), for a transaction that calls it by SHA.
   */
  public void load(Script script, String sampleKey) {
    Slots.scriptLoad(redis, sampleKey, script.source());
  }

  Object eval(Script script, List<String> keys, List<String> args) {
    if (!waited(script)) {
      try {
        return evalOnce(script, keys, args);
      } catch (JedisDataException e) {
        if (RedisErrors.isTopologyChange(e) && masterFinder.masterLost(e.getMessage())) {
          return evalOnce(script, keys, args);
        }
        throw e;
      }
    }
    return evalPipelined(script, List.of(new Call(keys, args))).get(0);
  }

  Object evalOnce(Script script, List<String> keys, List<String> args) {
    for (int attempt = 1; ; attempt++) {
      try {
        try {
          return redis.evalsha(script.sha(), keys, args);
        } catch (JedisNoScriptException e) {
          load(script, keys.get(0));
          return redis.evalsha(script.sha(), keys, args);
        }
      } catch (JedisDataException e) {
        if (!RedisErrors.isSlotMoving(e) || attempt >= SLOT_MOVING_ATTEMPTS) {
          throw e;
        }
        // TRYAGAIN: the slot is being resharded and some of the keys have moved already; the
        // script did not run, so it is safe to send again once the move has gone on
        pause(attempt);
      }
    }
  }

  /** Tries of a call that meets a slot in the middle of a reshard (TRYAGAIN), 10 ms apart and more. */
  private static final int SLOT_MOVING_ATTEMPTS = 50;

  private static void pause(int attempt) {
    try {
      Thread.sleep(Math.min(100, 10L * attempt));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while a slot was moving", e);
    }
  }

  /** One call of a batch: the same script with its own keys and arguments. */
  public record Call(List<String> keys, List<String> args) {}

  /**
   * Runs many calls of one script in one pipeline and returns their replies in order. Calls
   * that met NOSCRIPT did nothing, so they are sent again after loading the script.
   */
  public List<Object> evalPipelined(Script script, List<Call> calls) {
    return evalPipelined(script, calls, NOTHING_BESIDE).replies();
  }

  /** What a pipeline of script calls answered, and the commands sent beside them (see {@link #evalBeside}). */
  public record Beside<T>(List<Object> replies, T beside) {}

  private static final Function<AbstractPipeline, Void> NOTHING_BESIDE = p -> null;

  /**
   * One call of {@code script} and, in the same pipeline, the commands that {@code beside} queues
   * on it: one round trip for both (on a cluster each command goes to the master of its own
   * slot). The script's call is made as by {@link #evalPipelined}; the commands beside it are
   * sent once, and their {@link Response}s, which {@code beside} returns, are read after this
   * returns. For reads only: a command beside may answer with an error (a redirect, say).
   */
  public <T> Beside<T> evalBeside(Script script, Call call, Function<AbstractPipeline, T> beside) {
    return evalPipelined(script, List.of(call), beside);
  }

  /** Many calls of {@code script} as by {@link #evalPipelined}, and commands beside them as by {@link #evalBeside}. */
  public <T> Beside<T> evalBeside(Script script, List<Call> calls, Function<AbstractPipeline, T> beside) {
    return evalPipelined(script, calls, beside);
  }

  private <T> Beside<T> evalPipelined(Script script, List<Call> calls, Function<AbstractPipeline, T> beside) {
    try {
      return evalPipelinedOnce(script, calls, beside);
    } catch (JedisDataException e) {
      if (RedisErrors.isTopologyChange(e) && masterFinder.masterLost(e.getMessage())) {
        return evalPipelinedOnce(script, calls, beside);
      }
      throw e;
    }
  }

  private <T> Beside<T> evalPipelinedOnce(Script script, List<Call> calls, Function<AbstractPipeline, T> beside) {
    List<Object> replies = new ArrayList<>(calls.size());
    List<Integer> missed = new ArrayList<>();
    T besides = sendAll(script, calls, replies, missed, beside);
    if (!missed.isEmpty()) {
      List<Call> again = new ArrayList<>(missed.size());
      for (int i : missed) {
        again.add(calls.get(i));
      }
      // on the master of each slot that missed it (a load goes to one master, see Slots.scriptLoad)
      for (String sampleKey : oneKeyPerSlot(again)) {
        load(script, sampleKey);
      }
      List<Object> retried = new ArrayList<>();
      List<Integer> stillMissed = new ArrayList<>();
      sendAll(script, again, retried, stillMissed, NOTHING_BESIDE);
      if (!stillMissed.isEmpty()) {
        throw new IllegalStateException(script + " is still unknown to Redis after SCRIPT LOAD");
      }
      for (int k = 0; k < missed.size(); k++) {
        replies.set(missed.get(k), retried.get(k));
      }
    }
    return new Beside<>(replies, besides);
  }

  private List<String> oneKeyPerSlot(List<Call> calls) {
    if (!(redis instanceof RedisClusterClient)) {
      return List.of(calls.get(0).keys().get(0));
    }
    java.util.Map<Integer, String> bySlot = new java.util.LinkedHashMap<>();
    for (Call c : calls) {
      bySlot.putIfAbsent(JedisClusterCRC16.getSlot(c.keys().get(0)), c.keys().get(0));
    }
    return new ArrayList<>(bySlot.values());
  }

  boolean waited(Script script) {
    return acks.required() && !NOT_WAITED.contains(script);
  }

  private <T> T sendAll(Script script, List<Call> calls, List<Object> replies, List<Integer> missed,
      Function<AbstractPipeline, T> beside) {
    List<Response<Object>> responses = new ArrayList<>(calls.size());
    List<Response<Long>> confirmations = new ArrayList<>(1);
    T besides;
    try (AbstractPipeline pipeline = Pipelines.open(redis)) {
      for (Call c : calls) {
        responses.add(pipeline.evalsha(script.sha(), c.keys(), c.args()));
      }
      besides = beside.apply(pipeline);
      if (waited(script) && !calls.isEmpty()) {
        // a sample key routes WAIT to the node of the scripts' slot (one connection per node);
        // the calls of a sharded queue's batch may go to several slots: one WAIT for each
        for (String sample : oneKeyPerSlot(calls)) {
          confirmations.add(pipeline.waitReplicas(sample, acks.replicas(), acks.timeoutMs()));
        }
      }
      pipeline.sync();
    } catch (JedisConnectionException e) {
      // a cluster node that cannot be reached at all (killed, its replica not yet in its place)
      Pipelines.nodeLost(redis);
      throw e;
    }
    Response<Long> confirmed = null;
    for (Response<Long> c : confirmations) {
      if (confirmed == null || Pipelines.reply(c, "WAIT") < Pipelines.reply(confirmed, "WAIT")) {
        confirmed = c;
      }
    }
    for (int i = 0; i < responses.size(); i++) {
      try {
        replies.add(Pipelines.reply(responses.get(i), script.toString()));
      } catch (JedisNoScriptException e) {
        replies.add(null);
        missed.add(i);
      } catch (JedisDataException e) {
        if (!(e instanceof JedisRedirectionException) && !RedisErrors.isSlotMoving(e)) {
          throw e;
        }
        // a cluster's pipeline does not follow MOVED or ASK, and a TRYAGAIN did not run either:
        // the call did nothing, so it is sent again alone, where the client follows the redirect
        replies.add(evalOnce(script, calls.get(i).keys(), calls.get(i).args()));
      }
    }
    if (confirmed != null && missed.isEmpty() && confirmed.get() < acks.replicas()) {
      throw new ReplicaAcksException(script, confirmed.get(), acks, replies);
    }
    return besides;
  }
}
