package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * Calls scripts by SHA. All are loaded once at start; when Redis has lost its script cache
 * (a restart, SCRIPT FLUSH) the one call that hits NOSCRIPT loads the script and tries again.
 */
public final class Scripts {
  private final UnifiedJedis redis;

  public Scripts(UnifiedJedis redis) {
    this.redis = redis;
  }

  /** Loads every script, so the first calls go straight through. */
  public void loadAll() {
    for (Script s : Script.values()) {
      redis.scriptLoad(s.source());
    }
  }

  public Object eval(Script script, List<String> keys, List<String> args) {
    try {
      return redis.evalsha(script.sha(), keys, args);
    } catch (JedisNoScriptException e) {
      redis.scriptLoad(script.source());
      return redis.evalsha(script.sha(), keys, args);
    }
  }

  /** One call of a batch: the same script with its own keys and arguments. */
  public record Call(List<String> keys, List<String> args) {}

  /**
   * Runs many calls of one script in one pipeline and returns their replies in order. Calls
   * that met NOSCRIPT did nothing, so they are sent again after loading the script.
   */
  public List<Object> evalPipelined(Script script, List<Call> calls) {
    List<Object> replies = new ArrayList<>(calls.size());
    List<Integer> missed = new ArrayList<>();
    sendAll(script, calls, replies, missed);
    if (!missed.isEmpty()) {
      redis.scriptLoad(script.source());
      List<Call> again = new ArrayList<>(missed.size());
      for (int i : missed) {
        again.add(calls.get(i));
      }
      List<Object> retried = new ArrayList<>();
      List<Integer> stillMissed = new ArrayList<>();
      sendAll(script, again, retried, stillMissed);
      if (!stillMissed.isEmpty()) {
        throw new IllegalStateException(script + " is still unknown to Redis after SCRIPT LOAD");
      }
      for (int k = 0; k < missed.size(); k++) {
        replies.set(missed.get(k), retried.get(k));
      }
    }
    return replies;
  }

  private void sendAll(Script script, List<Call> calls, List<Object> replies, List<Integer> missed) {
    List<Response<Object>> responses = new ArrayList<>(calls.size());
    try (AbstractPipeline pipeline = redis.pipelined()) {
      for (Call c : calls) {
        responses.add(pipeline.evalsha(script.sha(), c.keys(), c.args()));
      }
      pipeline.sync();
    }
    for (int i = 0; i < responses.size(); i++) {
      try {
        replies.add(responses.get(i).get());
      } catch (JedisNoScriptException e) {
        replies.add(null);
        missed.add(i);
      }
    }
  }
}
