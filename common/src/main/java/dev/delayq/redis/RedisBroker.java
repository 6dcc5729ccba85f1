package dev.delayq.redis;

import dev.delayq.config.DelayqConfig;
import dev.delayq.config.Limit;
import dev.delayq.metrics.StatsRecorder;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * The hot path of the Redis contract: one typed method per script (plus the blocking claim),
 * used by producers, the scheduler, workers and the supervisor's recovery. Thread-safe; each
 * call borrows a pooled connection.
 *
 * <p>A queue of several shards ({@code queue.shards}) is one set of keys per shard, each in its
 * own slot. Work by id goes to the shard of the id (enqueue, cancel, every outcome of a
 * delivery, whose element carries the id); the scheduler's work is per shard (it names the
 * shard); what a consumer or worker does as a whole (heartbeat, giving back, being taken back
 * after its process died) is done on every shard. With one shard every call is exactly the one
 * script call it always was.
 *
 * <p>This class is the gateway's entry: the queue's limits, the producer's calls (enqueue,
 * cancel, change a pending job) and the operator's script calls on it directly, and each other
 * role's calls behind one door named after the role, a class of this package with one typed
 * method per script: {@link #scheduling()} ({@link SchedulerCalls}: forward, wakes, leases,
 * scheduler beats, trims), {@link #scheduleStore()}, {@link #consumerRegistry()} (heartbeats,
 * expired consumers, taking a consumer's jobs back), {@link #claims()}, {@link #starts()},
 * {@link #acks()}, {@link #outcomes()} and {@link #flow()}. The types they answer with are records
 * and enums of their own in this package ({@link Enqueued}, {@link Claimed}, {@link Ack}...). The
 * readers over the queue ({@link #inspector()}, {@link #invariantCheck()}, {@link #jobBrowser()},
 * {@link #handlerWait()}) and the operator side ({@link #admin}) are built here on the broker's
 * own client. Nothing hands out the client or the script loader: no caller outside this
 * package evaluates a script.
 */
public final class RedisBroker {
  /** queue.idRetention's default, 24 h: as long as payment APIs keep idempotency keys. */
  public static final long DEFAULT_ID_RETENTION_MS = 24 * 3600_000L;
  /** queue.maxPayloadBytes's default, 1 MiB. */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1 << 20;
  /** worker.claimMaxBytes's default, 4 MiB. */
  public static final int DEFAULT_CLAIM_MAX_BYTES = 4 << 20;
  /**
   * Room for a record's head over its payload: type, attempts, times and lastError (whose
   * text is the handler's). A record longer than the payload limit plus this is not read.
   */
  public static final int RECORD_HEAD_ROOM = 64 << 10;

  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;
  private final String idRetentionMs;
  private final String maxPayloadBytes;
  private final String claimMaxBytes;
  private final String recordMaxBytes;
  /** queue.limits as include/flow.lua reads them ({@link dev.delayq.config.Limit#spec}), '' for none. */
  private final String limitsSpec;
  private final Enqueuer enqueuer;
  private final ChangesById changes;
  private final ScheduleStore scheduleStore;
  private final Acknowledger acks;
  private final Outcomes outcomes;
  private final Starter starter;
  private final Claimer claimer;
  private final FlowControl flow;
  private final DeadJobs deadJobs;
  private final SchedulerCalls schedulerCalls;
  private final ConsumerRegistry consumerRegistry;
  private final Workflows workflows;

  /** A broker on a bare client: no replica acks (tests, tools). */
  public RedisBroker(UnifiedJedis redis, Keys keys) {
    this(redis, keys, new Scripts(redis));
  }

  /** A broker on a process's connection, with its replica acks and master following. */
  public RedisBroker(RedisConnection redis, Keys keys) {
    this(redis.client(), keys, new Scripts(redis));
  }

  private RedisBroker(UnifiedJedis redis, Keys keys, Scripts scripts) {
    this(redis, keys, scripts, DEFAULT_ID_RETENTION_MS, DEFAULT_MAX_PAYLOAD_BYTES, DEFAULT_CLAIM_MAX_BYTES, "");
  }

  private RedisBroker(UnifiedJedis redis, Keys keys, Scripts scripts, long idRetentionMs,
      int maxPayloadBytes, int claimMaxBytes, String limitsSpec) {
    this.limitsSpec = limitsSpec;
    this.redis = redis;
    this.keys = keys;
    this.scripts = scripts;
    this.idRetentionMs = Long.toString(idRetentionMs);
    this.maxPayloadBytes = Integer.toString(maxPayloadBytes);
    this.claimMaxBytes = Integer.toString(claimMaxBytes);
    this.recordMaxBytes = Long.toString((long) maxPayloadBytes + RECORD_HEAD_ROOM);
    this.enqueuer = new Enqueuer(keys, scripts, this.maxPayloadBytes);
    this.changes = new ChangesById(redis, keys, scripts, this.idRetentionMs);
    this.scheduleStore = new ScheduleStore(redis, keys, scripts);
    this.acks = new Acknowledger(keys, scripts, this.idRetentionMs);
    this.outcomes = new Outcomes(keys, scripts, this.idRetentionMs);
    this.starter = new Starter(keys, scripts, acks, this.idRetentionMs);
    this.claimer = new Claimer(redis, keys, scripts, acks, this.idRetentionMs, this.claimMaxBytes, this.recordMaxBytes,
        limitsSpec);
    this.flow = new FlowControl(redis, keys, scripts);
    this.deadJobs = new DeadJobs(scripts);
    this.schedulerCalls = new SchedulerCalls(redis, keys, scripts);
    this.consumerRegistry = new ConsumerRegistry(redis, keys, scripts, this.idRetentionMs);
    this.workflows = new Workflows(redis, keys, scripts, this.idRetentionMs, this.maxPayloadBytes);
  }

  /**
   * This broker on the same connections with the queue's limits: how long a caller-chosen id
   * stays taken after its job ended (queue.idRetention, 0: not at all), and the longest payload
   * enqueue.lua accepts (queue.maxPayloadBytes).
   */
  public RedisBroker withLimits(Duration idRetention, int maxPayloadBytes) {
    return withLimits(idRetention, maxPayloadBytes, Integer.parseInt(claimMaxBytes));
  }

  /** As {@link #withLimits(Duration, int)}, and the most record bytes one claim pulls (worker.claimMaxBytes). */
  public RedisBroker withLimits(Duration idRetention, int maxPayloadBytes, int claimMaxBytes) {
    return new RedisBroker(redis, keys, scripts, idRetention.toMillis(), maxPayloadBytes, claimMaxBytes, limitsSpec);
  }

  /** This broker with the rate limits and concurrency caps its claims enforce (queue.limits). */
  public RedisBroker withFlowLimits(List<Limit> limits) {
    return new RedisBroker(redis, keys, scripts, Long.parseLong(idRetentionMs), Integer.parseInt(maxPayloadBytes),
        Integer.parseInt(claimMaxBytes), Limit.spec(limits));
  }

  /** The broker with the limits of {@code config}'s queue and workers. */
  public RedisBroker withLimits(DelayqConfig config) {
    return withLimits(config.queue().idRetention(), config.queue().maxPayloadBytes(), config.worker().claimMaxBytes())
        .withFlowLimits(config.queue().limits());
  }

  /** The queue's keys (shard 0's; {@link Keys#allShards()} gives every shard's). */
  public Keys keys() {
    return keys;
  }

  public int shards() {
    return keys.shards();
  }

  /**
   * Loads the scripts and makes sure the queue is laid out in as many shards as configured: the
   * first process of a sharded queue records the count ({@link Keys#layout()}); a process that
   * finds another count, or a queue of one shard already holding jobs, is refused. Changing the
   * count of a live queue would leave its jobs in slots that no process reads any more.
   */
  public void prepare() {
    scripts.loadAll();
    verifyLayout();
  }

  /** The check of {@link #prepare()} alone, for a short-lived tool (the CLI). */
  public void verifyLayout() {
    Keys one = new Keys(keys.prefix(), keys.queue());
    long recorded = (Long) scripts.eval(Script.CLAIM_LAYOUT,
        List.of(keys.layout(), one.jobs(), one.delayed(), one.ready(), one.dead()),
        List.of(Integer.toString(keys.shards())));
    if (recorded != keys.shards()) {
      throw new ShardCountMismatch("queue.shards is " + keys.shards() + ", but queue '" + keys.queue()
          + "' was created with " + recorded + " shard" + (recorded == 1 ? "" : "s")
          + (recorded == 1 ? " (its keys are in the one slot {" + keys.queue() + "})"
              : " (recorded in " + keys.layout() + ")")
          + ": the shard count of a live queue cannot change, its jobs would stay in slots no "
          + "process reads. Set queue.shards back to " + recorded + ", or drain the queue (delayq "
          + "stats shows 0 jobs), delete " + keys.layout() + " and start again, or use a new queue.name");
    }
  }

  /** Loads every script on every master, for a caller that evaluates none itself (a test kit). */
  public void loadScripts() {
    scripts.loadAll();
  }

  /** Sends {@code stats}' counts gathered since its last flush (see {@link StatsRecorder#flush}). */
  public int flushStats(StatsRecorder stats, long epochSecond) {
    return stats.flush(redis, epochSecond);
  }

  // ---- operator --------------------------------------------------------------------------

  /** retryDead.lua on {@code ids}, all of {@code shard} (one of {@link Keys#allShards()}): one answer per id, in order. */
  public List<DeadRetry> retryDead(Keys shard, List<String> ids) {
    return deadJobs.retry(shard, ids);
  }

  /**
   * purgeDead.lua on {@code shard}: removes at most {@code most} dead jobs dead-lettered at least
   * {@code ageMsOrAll} ms ago ("all": every one), their ids kept taken for the id retention.
   * Returns how many went.
   */
  public int purgeDead(Keys shard, String ageMsOrAll, int most) {
    return deadJobs.purge(shard, ageMsOrAll, most, idRetentionMs);
  }

  /** requeueOrphan.lua: puts the record of {@code id}, found in none of its places, back on ready. */
  public OrphanRequeue requeueOrphan(String id, List<String> inFlightLists, String reason) {
    return deadJobs.requeueOrphan(keys.shardOf(id), id, inFlightLists, reason);
  }

  /** Where {@code id} is now, read at once in its shard (the in-flight lists given are looked through). */
  public JobPlaces jobPlaces(String id, List<String> inFlightLists) {
    return JobPlaces.read(redis, scripts, keys.shardOf(id), id, inFlightLists);
  }

  // ---- producers ------------------------------------------------------------------------

  /** enqueue.lua for one job, on the shard of its id: stored and placed, or why not. */
  public Enqueued enqueue(NewJob job) {
    return enqueuer.enqueue(job);
  }

  /**
   * Enqueues many jobs in one pipeline (one round trip per call of this method), a hundred
   * jobs per script call, cut from the jobs in due order (jobs due now first, in the given
   * order; all in the given order when an id comes twice); the answers come in the given order.
   */
  public List<Enqueued> enqueueAll(List<NewJob> jobs) {
    return enqueuer.enqueueAll(jobs);
  }

  /** True when the job was delayed or ready and is now gone. */
  public boolean cancel(String id) {
    return changes.cancel(id);
  }

  /**
   * Changes a job that has not started, in one script (changePending.lua): its due time and/or
   * its payload ({@code payloadJsonOrNull} null keeps it), keeping its attempts and last error.
   */
  public PendingChange changePending(String id, DueChange due, long amount, String payloadJsonOrNull) {
    return changes.changePending(id, due, amount, payloadJsonOrNull);
  }

  /** Asks the worker running {@code id} to stop it (cancelRunning.lua): a request key plus a pub/sub message. */
  public CancelAsk requestCancel(String id) {
    return changes.requestCancel(id);
  }

  /** Of {@code ids}, those whose cancel was asked for (one MGET). */
  public List<String> cancelRequested(List<String> ids) {
    return changes.cancelRequested(ids);
  }

  /** Drops the cancel request of a job that has ended. */
  public void clearCancelRequest(String id) {
    changes.clearCancelRequest(id);
  }

  /** The Redis server's clock, epoch milliseconds (the clock every script uses). */
  public long redisNowMs() {
    return RedisTime.nowMs(redis, keys.jobs());
  }

  /** The longest record a worker reads: queue.maxPayloadBytes plus {@link #RECORD_HEAD_ROOM}. */
  public long recordMaxBytes() {
    return Long.parseLong(recordMaxBytes);
  }

  // ---- the roles' doors: each a class of this package, one typed method per script -------

  /** The scheduler's calls: forward due jobs, wakes, leases, scheduler beats, id trims. */
  public SchedulerCalls scheduling() {
    return schedulerCalls;
  }

  /** Recurring schedules as stored: read, tick, save. */
  public ScheduleStore scheduleStore() {
    return scheduleStore;
  }

  /** Consumers as registered: heartbeats, expired ones, taking a consumer's jobs back. */
  public ConsumerRegistry consumerRegistry() {
    return consumerRegistry;
  }

  /** A worker's claims: from ready into a consumer's in-flight list. */
  public Claimer claims() {
    return claimer;
  }

  /** A consumer's start of a claimed delivery (its running mark and attempt). */
  public Starter starts() {
    return starter;
  }

  /** The acks of finished deliveries, and the give-backs of claimed ones not started. */
  public Acknowledger acks() {
    return acks;
  }

  /** Batches, jobs that wait for jobs, and kept results (docs/workflows.md). */
  public Workflows workflows() {
    return workflows;
  }

  /** A delivery's ends other than the plain acknowledgement (retry, dead, a result or a workflow's end). */
  public Outcomes outcomes() {
    return outcomes;
  }

  /** Pauses and resumes of a queue or a job type (held:&lt;type&gt;). */
  public FlowControl flow() {
    return flow;
  }

  // ---- readers and the operator side over this broker's client -------------------------

  /** Depths and places of this queue's jobs, read on this broker's client. */
  public Inspector inspector() {
    return new Inspector(redis, keys);
  }

  /** The invariant check of this queue ({@code delayq check}), on this broker's client. */
  public InvariantCheck invariantCheck() {
    return new InvariantCheck(redis, keys);
  }

  /** The jobs waiting for a handler (nohandler:&lt;type&gt;) of this queue, through its scripts. */
  public HandlerWait handlerWait() {
    return new HandlerWait(redis, keys, scripts);
  }

  /** The job browser of this queue (pages of ids with their record previews). */
  public JobBrowser jobBrowser() {
    return new JobBrowser(redis, keys);
  }

  /** The operator side of this queue, whose changes keep this broker's limits (id retention). */
  public Admin admin(int poisonPillAfter) {
    return new Admin(redis, keys, this, poisonPillAfter);
  }
}
