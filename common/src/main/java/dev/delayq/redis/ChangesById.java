package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * The changes of one job named by its id, each in its id's shard: cancel.lua, changePending.lua,
 * cancelRunning.lua, and the cancel requests that workers read at their heartbeat.
 */
final class ChangesById {
  /** How long a cancel request stands for workers to find at their heartbeat. */
  static final long CANCEL_REQUEST_TTL_MS = 10 * 60_000;

  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;
  /** queue.idRetention in ms, as the scripts take it. */
  private final String idRetentionMs;

  ChangesById(UnifiedJedis redis, Keys keys, Scripts scripts, String idRetentionMs) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = scripts;
    this.idRetentionMs = idRetentionMs;
  }

  boolean cancel(String id) {
    Keys keys = this.keys.shardOf(id);
    Object r = scripts.eval(Script.CANCEL, List.of(keys.jobs(), keys.delayed(), keys.ready(),
        keys.ended(), keys.endedExpiry()), List.of(id, idRetentionMs, keys.flowBase(), Workflows.keepMs(idRetentionMs)));
    return ((Long) r) == 1L;
  }

  PendingChange changePending(String id, DueChange due, long amount, String payloadJsonOrNull) {
    Keys keys = this.keys.shardOf(id);
    List<?> r = (List<?>) scripts.eval(Script.CHANGE_PENDING,
        List.of(keys.jobs(), keys.delayed(), keys.ready(), keys.dead(), keys.wake()),
        List.of(id, due.arg, due == DueChange.DELAY || due == DueChange.AT ? Long.toString(amount) : "",
            payloadJsonOrNull == null ? "" : payloadJsonOrNull, keys.flowBase()));
    return new PendingChange((String) r.get(0), (Long) r.get(1));
  }

  CancelAsk requestCancel(String id) {
    Keys keys = this.keys.shardOf(id);
    // one channel per queue (shard 0's name), which every worker subscribes to; a channel is no key
    long r = (Long) scripts.eval(Script.CANCEL_RUNNING,
        List.of(keys.jobs(), keys.delayed(), keys.ready(), keys.dead(), keys.cancelRequest(id)),
        List.of(id, this.keys.cancelChannel(), Long.toString(CANCEL_REQUEST_TTL_MS)));
    return r == 1 ? CancelAsk.ASKED : r == 0 ? CancelAsk.PENDING : r == -1 ? CancelAsk.UNKNOWN : CancelAsk.DEAD;
  }

  List<String> cancelRequested(List<String> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    List<String> values;
    if (keys.shards() == 1) {
      values = redis.mget(ids.stream().map(keys::cancelRequest).toArray(String[]::new));
    } else { // the request keys of a sharded queue sit in their jobs' slots: one GET each
      values = new ArrayList<>(ids.size());
      for (String id : ids) {
        values.add(redis.get(keys.shardOf(id).cancelRequest(id)));
      }
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      if (values.get(i) != null) {
        out.add(ids.get(i));
      }
    }
    return out;
  }

  void clearCancelRequest(String id) {
    redis.del(keys.shardOf(id).cancelRequest(id));
  }
}
