package dev.delayq.redis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * The operator's actions on one queue (dead jobs, one job's whereabouts, recovery, live
 * statistics), for {@code bin/delayq} and the dashboard: the types they answer with, and one door
 * to the rooms that do each part ({@link DeadJobActions}, {@link JobWhereabouts},
 * {@link PauseControl}, {@link OperatorRecovery}, {@link StatsReader}). Every state change is one
 * script call; loops over many jobs run in those rooms, a bounded batch per call. Thread-safe;
 * each call borrows a pooled connection.
 */
public final class Admin {
  /** Most ids one admin script call handles; Java loops while a call comes back full. */
  static final int BATCH = 1000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final UnifiedJedis redis;
  private final Keys keys;
  private final RedisBroker broker;
  private final StatsReader statsReader;
  private final DeadJobActions deadJobs;
  private final JobWhereabouts whereabouts;
  private final PauseControl pauses;
  private final OperatorRecovery recovery;

  public Admin(UnifiedJedis redis, Keys keys, int poisonPillAfter) {
    this(redis, keys, new RedisBroker(redis, keys), poisonPillAfter);
  }

  /** The admin side on a process's connection (its replica acks apply to every change). */
  public Admin(RedisConnection redis, Keys keys, int poisonPillAfter) {
    this(redis.client(), keys, new RedisBroker(redis, keys), poisonPillAfter);
  }

  /**
   * The admin side over {@code broker} ({@link RedisBroker#admin}), whose limits (id retention)
   * its changes keep, reading on {@code redis}, the broker's client.
   */
  Admin(UnifiedJedis redis, Keys keys, RedisBroker broker, int poisonPillAfter) {
    this.redis = redis;
    this.keys = keys;
    this.broker = broker;
    Inspector inspector = new Inspector(redis, keys);
    this.statsReader = new StatsReader(redis, keys, inspector);
    this.deadJobs = new DeadJobActions(redis, keys, broker);
    this.whereabouts = new JobWhereabouts(redis, keys, broker, inspector);
    this.pauses = new PauseControl(keys, broker, inspector);
    this.recovery = new OperatorRecovery(broker, inspector, poisonPillAfter);
  }

  public Keys keys() {
    return keys;
  }

  // ---- dead jobs ---------------------------------------------------------------------------

  /**
   * A dead job as listed. A record that cannot be read lists with type {@code "?"}, its error
   * (when the wrapper kept one) and, as payloadJson, the unreadable text itself.
   */
  public record DeadJob(String id, String type, long deadAt, int attempt, int maxAttempts,
      String lastError, String payloadJson) {}

  /** Dead jobs, newest first, at most {@code limit}; only those of {@code typeOrNull} if given. */
  public List<DeadJob> deadList(String typeOrNull, int limit) {
    return deadJobs.deadList(typeOrNull, limit);
  }

  /**
   * Runs a dead job again at once: it leaves dead for ready with attempt 1 (lost deliveries 0),
   * due now, its last error kept in the record as {@code previousError}. False when the id is
   * not dead. Throws IllegalStateException when its record is unreadable (it stays dead).
   */
  public boolean retryDead(String id) {
    return deadJobs.retryDead(id);
  }

  /**
   * Retries every dead job, in batches of at most 1,000 per script call; returns how many went
   * back to ready. Jobs with unreadable records stay dead and are stepped over.
   */
  public int retryAllDead() {
    return deadJobs.retryAllDead();
  }

  /**
   * Removes dead jobs and their records: those dead-lettered at least {@code olderThanOrNull}
   * ago by Redis's clock, or all of them when null. Returns how many went.
   */
  public int purgeDead(Duration olderThanOrNull) {
    return deadJobs.purgeDead(olderThanOrNull);
  }

  // ---- one job -----------------------------------------------------------------------------

  /**
   * Where a job is. ORPHAN: a record whose id is in no structure (a breach of the invariant).
   * ENDED: the job is gone, and its caller-chosen id is still taken (see {@link Ended}) or its
   * result still kept ({@link Workflows.KeptResult}). WAITING: it waits for other jobs to end
   * (see {@link Waiting}).
   */
  public enum State { DELAYED, READY, IN_FLIGHT, DEAD, ORPHAN, ENDED, HELD, WAITING_FOR_HANDLER, WAITING }

  /** How a job whose id is kept ended ("done", "cancelled", "purged"), when, and when the id is free. */
  public record Ended(String outcome, long endedAt, long freeAt) {}

  /**
   * A job waiting for other jobs: the ids it still waits for (sorted), since when (epoch ms), its
   * own delay (it falls due that long after the last of them ended), and what it does when one of
   * them does not end done ({@code ifDependencyFails}: fail, run, wait).
   */
  public record Waiting(List<String> waitsFor, long sinceMs, long delayMs, String ifDependencyFails) {
    public Waiting {
      waitsFor = List.copyOf(waitsFor);
    }
  }

  /**
   * One job as found now. {@code consumer} is set for IN_FLIGHT; {@code dueAt} is the delayed
   * score when delayed, 0 when WAITING (not known until it is released), else the record's; {@code deadAt} is set for DEAD; {@code rawRecord} is
   * null when the id sits somewhere without a record (a breach). Type "?" when unreadable.
   * {@code ended}: set for ENDED when its id is still taken; {@code waiting}: set for WAITING;
   * {@code result}: how it ended and the result it gave, while kept (queue.idRetention), else null.
   */
  public record JobView(String id, State state, String consumer, long dueAt, Long deadAt,
      int attempt, int maxAttempts, String type, String lastError, String rawRecord, Ended ended,
      Waiting waiting, Workflows.KeptResult result) {
    /** How the job ended, for ENDED: from its kept id, else from its kept result. */
    public String outcome() {
      return ended != null ? ended.outcome() : result != null ? result.outcome() : null;
    }
  }

  /** The job's state and record; empty when Redis knows nothing of the id. */
  public Optional<JobView> inspect(String id) {
    return whereabouts.inspect(id);
  }

  // ---- batches (workflows) -----------------------------------------------------------------

  /** The batch of {@code id} as kept; empty when never opened, or finished and forgotten. */
  public Optional<Workflows.Batch> batch(String id) {
    return broker.workflows().batch(id);
  }

  /**
   * The batches neither finished nor cancelled, oldest first, at most {@code limit}, each with its
   * counts. A batch that finished between the listing and its read is left out.
   */
  public List<Workflows.Batch> openBatches(int limit) {
    List<Workflows.Batch> out = new ArrayList<>();
    for (String id : broker.workflows().openBatches(limit)) {
      broker.workflows().batch(id).ifPresent(out::add);
    }
    return out;
  }

  // ---- pause and resume (flow control, include/flow.lua) ------------------------------------

  /** The whole queue's scope in {@link #pause} and {@link #resume}. */
  public static final String WHOLE_QUEUE = "*";
  /**
   * Pauses {@code scope} ({@link #WHOLE_QUEUE} or a job type): its jobs are still accepted and
   * fall due, and none starts until {@link #resume}; jobs already running finish. Kept in Redis,
   * so it outlives every process. True when any shard was not paused before; a shard whose master
   * fails throws {@link ShardsNotDoneException} naming it (see {@link PauseControl#pause}).
   */
  public boolean pause(String scope) {
    return pauses.pause(scope);
  }

  /**
   * Lifts the pause of {@code scope} and gives back to ready every job held meanwhile. Returns
   * {was paused, jobs given back}; shard by shard, as {@link PauseControl#resume} tells.
   */
  public Resumed resume(String scope) {
    return pauses.resume(scope);
  }

  /** Paused scopes and held jobs, over every shard (a scope paused on some shards only shows as such). */
  public Inspector.Flow flow() {
    return pauses.flow();
  }

  // ---- recovery ----------------------------------------------------------------------------

  /**
   * What {@link #recover()} did: consumers taken back and jobs moved, per kind. {@code requeued}
   * went back to ready; {@code charged} of the jobs taken back had their handler running and
   * counted an attempt (to ready or, {@code deadLettered}, to dead).
   */
  public record RecoverReport(int expiredConsumers, int unregisteredConsumers, int requeued,
      int charged, int deadLettered, int orphansRequeued, int orphansDeadLettered, WorkflowRepairs workflows) {
    /** A report with no workflow breach repaired. */
    public RecoverReport(int expiredConsumers, int unregisteredConsumers, int requeued, int charged,
        int deadLettered, int orphansRequeued, int orphansDeadLettered) {
      this(expiredConsumers, unregisteredConsumers, requeued, charged, deadLettered, orphansRequeued,
          orphansDeadLettered, WorkflowRepairs.NONE);
    }

    public int total() {
      return requeued + deadLettered + orphansRequeued + orphansDeadLettered + workflows.total();
    }
  }

  /**
   * What {@link #recover()} did to the workflow breaches the check confirmed: waiting jobs
   * released, or {@code failed} (dead, as their policy says for a dependency that did not end
   * done); waiting entries without a record removed; lost batch members counted; closed batches
   * finished (their callbacks enqueued). {@code repaired} names each item repaired and
   * {@code notRepaired} each one left as it was and why, a line each, at most
   * {@value OperatorRecovery#NAMED} lines (the last says how many more).
   */
  public record WorkflowRepairs(int released, int failed, int forgotten, int membersCounted,
      int batchesFinished, List<String> repaired, List<String> notRepaired) {
    public static final WorkflowRepairs NONE = new WorkflowRepairs(0, 0, 0, 0, 0, List.of(), List.of());

    public WorkflowRepairs {
      repaired = List.copyOf(repaired);
      notRepaired = List.copyOf(notRepaired);
    }

    public int total() {
      return released + failed + forgotten + membersCounted + batchesFinished;
    }
  }

  /**
   * Runs the recoverer now, by the one {@link Recovery} policy (see {@link OperatorRecovery#recover}):
   * takes back the in-flight jobs of expired and unregistered consumers, then puts every hash
   * orphan the consistency check confirms back on ready, and repairs the workflow breaches it
   * confirms (waiting jobs nothing will release, batches that will never finish).
   */
  public RecoverReport recover() {
    return recovery.recover();
  }

  /** Puts an orphan record back on ready, re-checked atomically by requeueOrphan.lua. */
  OrphanRequeue requeueOrphan(String id) {
    return recovery.requeueOrphan(id);
  }

  // ---- statistics --------------------------------------------------------------------------

  /**
   * The queue at a glance. {@code backlog}: jobs due and not started (delayed with a due time
   * at or before now, plus ready). {@code oldestOverdueMs}: how long the longest-waiting due job
   * has been due (0 when none). {@code jobsPerSecond}: runs finished (succeeded + failed) per
   * second over the last minute. Lateness (start minus due) quantiles over the last minute as
   * the upper bound in ms of the {@link dev.delayq.metrics.LatencyBuckets} bucket they fall in,
   * null when no job started in the last minute; a quantile past the last bound is reported as
   * that bound (60000). {@code counters}: cumulative counts, type -> event -> n (events:
   * enqueued, started, succeeded, failed, retried, dead, rescheduled). {@code redisNowMs}: the
   * Redis clock when read.
   */
  public record Stats(Inspector.Depths depths, long backlog, long oldestOverdueMs,
      double jobsPerSecond, Long latenessP50Ms, Long latenessP99Ms, long startedLastMinute,
      Map<String, Map<String, Long>> counters, long redisNowMs) {}

  public Stats stats() {
    return statsReader.read(redisNowMs());
  }

  /**
   * How many delayed jobs fall due in each {@code step} over the next {@code horizon} (Redis
   * clock): element i counts due times in (now + i*step, now + (i+1)*step]. At most 10,000 steps.
   */
  public List<Long> dueForecast(Duration horizon, Duration step) {
    return statsReader.dueForecast(redisNowMs(), horizon, step);
  }

  /**
   * The fields of the queue's cumulative stats hash; with several shards those of every shard's
   * hash added up (enqueues count in their job's shard, workers in shard 0).
   */
  public Map<String, String> statsFields() {
    if (keys.shards() == 1) {
      return redis.hgetAll(keys.stats());
    }
    Map<String, String> sum = new HashMap<>();
    for (Keys shard : keys.allShards()) {
      redis.hgetAll(shard.stats()).forEach((field, n) -> sum.merge(field, n,
          (a, b) -> Long.toString(Long.parseLong(a) + Long.parseLong(b))));
    }
    return sum;
  }

  /** The Redis server's clock, epoch milliseconds. */
  public long redisNowMs() {
    return broker.redisNowMs();
  }

  static JsonNode tree(String raw) {
    try {
      JsonNode node = JSON.readTree(raw);
      return node != null && node.isObject() ? node : null;
    } catch (IOException e) {
      return null;
    }
  }
}
