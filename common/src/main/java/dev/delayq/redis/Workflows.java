package dev.delayq.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The Redis side of workflows (docs/workflows.md): jobs enqueued into a batch or to wait for
 * other jobs (enqueueFlow.lua), a batch opened, closed and cancelled (batch.lua), and what they
 * keep: batches and results. The ends are settled by the scripts that end jobs
 * (include/workflow.lua). A workflow's counts must change in the same script as each of its jobs'
 * ends, so its keys and its jobs share one slot: a sharded queue refuses workflows.
 */
public final class Workflows {
  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;
  private final String maxPayloadBytes;
  private final String keepMs;

  Workflows(UnifiedJedis redis, Keys keys, Scripts scripts, String idRetentionMs, String maxPayloadBytes) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = scripts;
    this.maxPayloadBytes = maxPayloadBytes;
    this.keepMs = keepMs(idRetentionMs);
  }

  /**
   * How long results and finished batches are kept, ms: queue.idRetention, or its default (24 h)
   * when ids are not kept at all (0), since a waiting job may read its dependencies' results.
   */
  static String keepMs(String idRetentionMs) {
    return Long.parseLong(idRetentionMs) > 0 ? idRetentionMs : Long.toString(RedisBroker.DEFAULT_ID_RETENTION_MS);
  }

  /** A job as enqueueFlow.lua takes it: what it waits for, and what it does when one of them does not end done. */
  public record FlowJob(NewJob job, List<String> waitsFor, String ifDependencyFails) {
    public FlowJob {
      waitsFor = List.copyOf(waitsFor);
      if (!ifDependencyFails.equals("fail") && !ifDependencyFails.equals("run") && !ifDependencyFails.equals("wait")) {
        throw new IllegalArgumentException("ifDependencyFails is fail, run or wait, not " + ifDependencyFails);
      }
    }
  }

  /** A batch's callback job: its id (known from the close on), record head, payload and delay after the batch finished. */
  public record Callback(String id, String recordHead, String payloadJson, long delayMs) {}

  /** What a close did: the batch waits for its jobs, or it had none left and its callback is enqueued. */
  public enum Closed { CLOSED, FINISHED }

  /** A batch as kept: its state (open, closed, finished, cancelled), its counts and its callbacks' ids (null when none). */
  public record Batch(String id, String state, long total, long pending, long done, long dead, long cancelled,
      long createdAt, long closedAt, long endedAt, String successId, String completeId, String firedId) {}

  /** How a job ended and its result JSON (null when it gave none), kept for the id retention. */
  public record KeptResult(String id, String outcome, long endedAt, String json) {}

  /**
   * Enqueues jobs into {@code batchId} (null for none) and/or to wait for others, all checked
   * before any is written: one answer per job. Throws IllegalArgumentException naming what is
   * wrong with a wait, IllegalStateException when the batch cannot take jobs.
   */
  public List<Enqueued> enqueue(String batchId, List<FlowJob> jobs) {
    requireOneShard();
    List<String> args = new ArrayList<>(4 + jobs.size() * 8);
    args.add(keys.flowBase());
    args.add(maxPayloadBytes);
    args.add(keepMs);
    args.add(batchId == null ? "" : batchId);
    for (FlowJob f : jobs) {
      NewJob j = f.job();
      args.add(j.id());
      args.add(j.recordHead());
      args.add(j.payloadJson());
      args.add(Long.toString(j.when()));
      args.add(j.absolute() ? "at" : "delay");
      args.add(f.ifDependencyFails());
      args.add(Integer.toString(f.waitsFor().size()));
      args.addAll(f.waitsFor());
    }
    List<?> r = (List<?>) call(Script.ENQUEUE_FLOW, List.of(keys.jobs(), keys.delayed(), keys.ready(), keys.wake(),
        keys.stats(), keys.ended(), keys.endedExpiry(), keys.dead()), args);
    List<Enqueued> out = new ArrayList<>(jobs.size());
    for (int i = 0; i < r.size(); i += 2) {
      out.add(new Enqueued(EnqueueCode.of((Long) r.get(i)), (Long) r.get(i + 1)));
    }
    return out;
  }

  /** Opens a batch under {@code id}; its created-at time. IllegalStateException when the id is taken. */
  public long openBatch(String id) {
    requireOneShard();
    return (Long) call(Script.BATCH, List.of(keys.batches()), List.of(keys.flowBase(), "open", id, keepMs));
  }

  /** Closes a batch with its callbacks (either may be null). IllegalStateException when it is not open. */
  public Closed closeBatch(String id, Callback onSuccess, Callback onComplete) {
    requireOneShard();
    List<String> args = new ArrayList<>(List.of(keys.flowBase(), "close", id, keepMs));
    for (Callback c : new Callback[] {onSuccess, onComplete}) {
      if (c == null) {
        args.addAll(List.of("", "", "", ""));
      } else {
        args.addAll(List.of(c.id(), c.recordHead(), c.payloadJson(), Long.toString(c.delayMs())));
      }
    }
    return "finished".equals(call(Script.BATCH, List.of(keys.batches()), args)) ? Closed.FINISHED : Closed.CLOSED;
  }

  /**
   * Marks a batch cancelled, so no callback fires; the ids of its jobs that had not ended, for
   * the caller to cancel in this order: each comes before the jobs of the batch it waits for, whose
   * cancel would otherwise fail it first (dead, left behind). IllegalStateException when it
   * finished or was cancelled.
   */
  @SuppressWarnings("unchecked")
  public List<String> cancelBatch(String id) {
    requireOneShard();
    return (List<String>) call(Script.BATCH, List.of(keys.batches()), List.of(keys.flowBase(), "cancel", id, keepMs));
  }

  /** The batch of {@code id} as kept, or empty (never opened, or finished and forgotten). */
  public Optional<Batch> batch(String id) {
    Map<String, String> h = redis.hgetAll(keys.batch(id));
    if (h.isEmpty() || !h.containsKey("state")) {
      return Optional.empty();
    }
    long pending = redis.scard(keys.batchPending(id));
    return Optional.of(new Batch(id, h.get("state"), number(h, "total"), pending, number(h, "done"),
        number(h, "dead"), number(h, "cancelled"), number(h, "createdAt"), number(h, "closedAt"),
        number(h, "endedAt"), h.get("successId"), h.get("completeId"), h.get("fired")));
  }

  /** The ids of the batches neither finished nor cancelled, oldest first, at most {@code limit}. */
  public List<String> openBatches(int limit) {
    return redis.zrange(keys.batches(), 0, limit - 1L);
  }

  /** How many batches are neither finished nor cancelled. */
  public long openBatchCount() {
    return redis.zcard(keys.batches());
  }

  /** How the job of {@code id} ended and its result, while kept; empty when unknown. */
  public Optional<KeptResult> result(String id) {
    String kept = redis.hget(keys.shardOf(id).results(), id);
    return kept == null ? Optional.empty() : Optional.of(parse(id, kept));
  }

  /** {@link #result} for several ids of one shard's queue (a waiting job's dependencies), in one call. */
  public Map<String, KeptResult> results(List<String> ids) {
    Map<String, KeptResult> out = new LinkedHashMap<>();
    if (ids.isEmpty()) {
      return out;
    }
    List<String> kept = redis.hmget(keys.shardOf(ids.get(0)).results(), ids.toArray(String[]::new));
    for (int i = 0; i < ids.size(); i++) {
      if (kept.get(i) != null) {
        out.put(ids.get(i), parse(ids.get(i), kept.get(i)));
      }
    }
    return out;
  }

  /** delayq recover's repairs of workflow breaches (repairWorkflow.lua), with this queue's keep time. */
  WorkflowRepair repair() {
    return new WorkflowRepair(keys, scripts, keepMs);
  }

  private static KeptResult parse(String id, String kept) {
    // '<outcome>:<ended at ms>:<json>' (include/workflow.lua keepResult)
    int a = kept.indexOf(':');
    int b = kept.indexOf(':', a + 1);
    String json = kept.substring(b + 1);
    return new KeptResult(id, kept.substring(0, a), Long.parseLong(kept.substring(a + 1, b)), json.isEmpty() ? null : json);
  }

  private static long number(Map<String, String> h, String field) {
    String v = h.get(field);
    return v == null ? 0 : Long.parseLong(v);
  }

  private Object call(Script script, List<String> keyList, List<String> args) {
    try {
      return scripts.eval(script, keyList, args);
    } catch (JedisDataException e) {
      String m = e.getMessage() == null ? "" : e.getMessage();
      if (m.startsWith("WAIT ")) {
        throw new IllegalArgumentException(m.substring(5), e);
      }
      if (m.startsWith("BATCH ")) {
        throw new IllegalStateException("batch " + m.substring(6), e);
      }
      throw e;
    }
  }

  private void requireOneShard() {
    if (keys.shards() > 1) {
      throw new IllegalStateException("workflows (batches, jobs that wait for jobs) need queue.shards: 1; queue "
          + keys.queue() + " has " + keys.shards() + " shards, and a batch's counts change in the same script as"
          + " each of its jobs' ends, which one Redis Cluster slot must hold");
    }
  }
}
