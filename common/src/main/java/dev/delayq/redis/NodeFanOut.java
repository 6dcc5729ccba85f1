package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * The calls of many shards at once, each with its own outcome: a node that cannot be reached, or
 * (on a cluster, through {@link NodeLanes}) one that hangs, fails only its own shards' calls.
 * {@link Scripts} loads and retries one call; this sends many and keeps their failures apart.
 */
final class NodeFanOut {
  private final UnifiedJedis redis;
  private final Scripts scripts;
  private final RedisConnection.MasterFinder masterFinder;
  /** Each cluster node's calls on its own thread, for {@link #evalEachApart}; null off a cluster. */
  private final NodeLanes lanes;

  NodeFanOut(UnifiedJedis redis, Scripts scripts, RedisConnection.MasterFinder masterFinder, NodeLanes lanes) {
    this.redis = redis;
    this.scripts = scripts;
    this.masterFinder = masterFinder;
    this.lanes = lanes;
  }

  /** One call's outcome in {@link #evalEach}: its reply, or (reply null) the error its call met. */
  record Outcome(Object reply, JedisException failure) {}

  /**
   * Many calls of {@code script}, one whose writes are not waited for, in one pipeline, each with
   * its own outcome. On a cluster a node that cannot be reached (refused as the pipeline queues
   * its first call, or its connection lost while the replies are read) fails only the calls of
   * its slots, and the others' replies are used: a lost master costs the shards it serves, not
   * the whole pipeline. No failed call is tried again here (Jedis's own retries of a call to a
   * dead node block for seconds, with backoff, until the slot map changes); the caller holds it
   * back and tries later. A redirect, a moving slot or NOSCRIPT did nothing: that call is sent
   * again alone, as {@link Scripts#eval} sends it.
   */
  List<Outcome> evalEach(Script script, List<Scripts.Call> calls) {
    if (scripts.waited(script)) {
      throw new IllegalArgumentException(script + " is waited for by replicas; evalEach sends no WAIT");
    }
    List<Response<Object>> responses = new ArrayList<>(calls.size());
    Outcome[] out = new Outcome[calls.size()];
    boolean lost = false;
    try (AbstractPipeline pipeline = Pipelines.open(redis)) {
      for (int i = 0; i < calls.size(); i++) {
        try {
          responses.add(pipeline.evalsha(script.sha(), calls.get(i).keys(), calls.get(i).args()));
        } catch (JedisConnectionException e) {
          // a cluster pipeline connects to a node as it queues its first command: the others still go
          responses.add(null);
          out[i] = new Outcome(null, e);
          lost = true;
        }
      }
      pipeline.sync();
    } catch (JedisConnectionException e) {
      // one server (not a cluster): every call of the pipeline went to it
      Pipelines.nodeLost(redis);
      for (int i = 0; i < out.length; i++) {
        out[i] = out[i] != null ? out[i] : new Outcome(null, e);
      }
      return List.of(out);
    }
    for (int i = 0; i < out.length; i++) {
      if (out[i] == null) {
        out[i] = outcomeOf(script, calls.get(i), responses.get(i));
        lost |= out[i].failure() instanceof JedisConnectionException;
      }
    }
    if (lost) {
      Pipelines.nodeLost(redis);
    }
    return List.of(out);
  }

  /**
   * As {@link #evalEach}, for the calls of a queue of several shards: on a Redis Cluster each
   * node's calls go on a thread of that node's ({@link NodeLanes}), and a node that does not answer
   * within the pass's wait (it hangs) leaves its calls in flight, answered
   * {@link NodeInFlightException}, while the other nodes' are answered; until it answers, its
   * calls are not sent. Elsewhere (one server: every shard on it) the same as {@link #evalEach}.
   */
  List<Outcome> evalEachApart(Script script, List<Scripts.Call> calls) {
    return evalEachApart(script, calls, false);
  }

  /**
   * As {@link #evalEachApart(Script, List)}; {@code mayQueue}: a call sent twice does no more than
   * once (a heartbeat), so it may queue on a node's thread behind reads there instead of being
   * held back until they are answered ({@link NodeLanes}).
   */
  List<Outcome> evalEachApart(Script script, List<Scripts.Call> calls, boolean mayQueue) {
    if (lanes == null) {
      return evalEach(script, calls);
    }
    if (scripts.waited(script)) {
      throw new IllegalArgumentException(script + " is waited for by replicas; evalEachApart sends no WAIT");
    }
    return lanes.evalEach(script, calls, mayQueue, (c, response) -> outcomeOf(script, c, response),
        () -> Pipelines.nodeLost(redis));
  }

  /**
   * Runs {@code work} for each index of {@code route}, each cluster node's share on that node's
   * thread ({@link NodeLanes#runEach}): a node that hangs leaves its share in flight. Null off a
   * cluster (the caller runs the work itself).
   */
  <T> List<T> runEachApart(List<String> route, IntFunction<T> work, IntFunction<T[]> array,
      Function<NodeInFlightException, T> inFlight, Function<JedisException, T> failed) {
    return lanes == null ? null : lanes.runEach(route, work, array, inFlight, failed);
  }

  /** Whether {@link #lengthsApart} and {@link #evalEachApart} read each node apart (on a cluster). */
  boolean readsApart() {
    return lanes != null;
  }

  /** Whether the cluster node of {@code key}'s slot hangs, as the lanes saw it ({@link NodeLanes#hangs}); false off a cluster. */
  boolean nodeHangs(String key) {
    return lanes != null && lanes.hangs(key);
  }

  /**
   * The lengths of {@code lists}, each node's read on its own thread and awaited apart (see
   * {@link NodeLanes#lengths}): sent when this returns, so that the caller's own call goes meanwhile.
   * Null off a cluster (one server answers all or none: there is nothing to read apart).
   */
  NodeLanes.Pending<Long> lengthsApart(List<String> lists) {
    return lanes == null ? null : lanes.lengths(lists, () -> Pipelines.nodeLost(redis));
  }

  /**
   * One pipelined call's outcome: its reply, or the error it met. A redirect, a moving slot or
   * NOSCRIPT did nothing: that call is sent again alone, as {@link Scripts#eval} sends it.
   */
  private Outcome outcomeOf(Script script, Scripts.Call c, Response<Object> response) {
    try {
      return new Outcome(Pipelines.reply(response, script.toString()), null);
    } catch (JedisConnectionException e) {
      return new Outcome(null, e);
    } catch (JedisDataException e) {
      boolean didNothing = e instanceof JedisNoScriptException || e instanceof JedisRedirectionException
          || RedisErrors.isSlotMoving(e)
          || RedisErrors.isTopologyChange(e) && masterFinder.masterLost(e.getMessage());
      return didNothing ? evalAlone(script, c) : new Outcome(null, e);
    }
  }

  private Outcome evalAlone(Script script, Scripts.Call c) {
    try {
      return new Outcome(scripts.evalOnce(script, c.keys(), c.args()), null);
    } catch (JedisException e) {
      return new Outcome(null, e);
    }
  }
}
