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
 * <p>This class is the contract: on each method, what it does; the types it answers with are
 * records and enums of their own in this package ({@link Enqueued}, {@link Claimed}, {@link Ack}...).
 * How each role builds its calls and reads their answers lives in a package-private class named
 * after it, to which the method hands over in one call: {@code Enqueuer}, {@code ChangesById},
 * {@code ScheduleStore}, {@code Claimer}, {@code Starter}, {@code Acknowledger},
 * {@code Outcomes} (with {@code UnconfirmedReplies}), {@code FlowControl}, {@code DeadJobs},
 * {@code SchedulerCalls} (forward, wakes, leases, scheduler beats, trims) and
 * {@code ConsumerRegistry} (heartbeats, expired consumers, taking a consumer's jobs back). No
 * caller outside this package evaluates a script or holds the client through the broker.
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
    this.outcomes = new Outcomes(keys, scripts);
    this.starter = new Starter(keys, scripts, acks, this.idRetentionMs);
    this.claimer = new Claimer(redis, keys, scripts, acks, this.idRetentionMs, this.claimMaxBytes, this.recordMaxBytes,
        limitsSpec);
    this.flow = new FlowControl(redis, keys, scripts);
    this.deadJobs = new DeadJobs(scripts);
    this.schedulerCalls = new SchedulerCalls(redis, keys, scripts);
    this.consumerRegistry = new ConsumerRegistry(redis, keys, scripts, this.idRetentionMs);
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

  /** The client, for the gateway's own helpers and the tests beside them. */
  UnifiedJedis redis() {
    return redis;
  }

  /** The script loader, for the gateway's own helpers and the tests beside them. */
  Scripts scripts() {
    return scripts;
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

  public Enqueued enqueue(NewJob job) {
    return enqueuer.enqueue(job);
  }

  /**
   * Enqueues many jobs in one pipeline (one round trip per call of this method), a hundred
   * jobs per script call.
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

  // ---- recurring schedules -----------------------------------------------------------------

  /** The Redis server's clock, epoch milliseconds (the clock every script uses). */
  public long redisNowMs() {
    return RedisTime.nowMs(redis, keys.jobs());
  }

  /** Every schedule, in id order (few: one hash read and one ZSET read). */
  public List<StoredSchedule> schedules() {
    return scheduleStore.schedules();
  }

  /** One schedule as stored, or empty. */
  public Optional<StoredSchedule> schedule(String id) {
    return scheduleStore.schedule(id);
  }

  /** Schedules whose next tick is at or before {@code untilMs}, earliest first, at most {@code limit}. */
  public List<Tuple> schedulesDueBy(long untilMs, int limit) {
    return scheduleStore.schedulesDueBy(untilMs, limit);
  }

  /** The earliest next tick of any schedule, or empty when none is active. */
  public OptionalLong earliestScheduleTick() {
    return scheduleStore.earliestScheduleTick();
  }

  /**
   * One tick of a schedule, in one script (tickSchedule.lua): creates the job of {@code tickMs}
   * (or none when negative), moves the schedule's next tick to {@code newNextMs} (none when
   * negative), only while the schedule is still as the caller read it.
   */
  public Ticked tickSchedule(StoredSchedule read, long tickMs, String jobId, String recordHead, String payloadJson,
      long newNextMs) {
    return scheduleStore.tickSchedule(read, tickMs, jobId, recordHead, payloadJson, newNextMs);
  }

  /**
   * Stores (or, {@code definitionOrNull} null, removes) a schedule with its next tick (none when
   * negative), withdrawing the created-ahead jobs {@code withdraw}; only while its latest created
   * tick is still {@code expectedLastTick} (-1: none). Returns the number withdrawn, or -1 when a
   * tick was created meanwhile (read again and retry).
   */
  public int saveSchedule(String id, String definitionOrNull, long nextTick, long expectedLastTick,
      List<String> withdraw) {
    return scheduleStore.saveSchedule(id, definitionOrNull, nextTick, expectedLastTick, withdraw);
  }

  // ---- scheduler -------------------------------------------------------------------------

  /** Forwards shard 0 (the whole queue when it has one shard). */
  public Forwarded moveDueToReady(int limit) {
    return schedulerCalls.moveDueToReady(limit);
  }

  /** Moves up to {@code limit} due ids of one shard from its delayed to its ready. */
  public Forwarded moveDueToReady(int shard, int limit) {
    return schedulerCalls.moveDueToReady(shard, limit);
  }

  /**
   * Moves up to {@code limit} ids of one shard that are due at least {@code graceMs} ago (a hot
   * standby's pass: what the lease holder left overdue) from its delayed to its ready.
   */
  public Forwarded moveDueToReady(int shard, int limit, long graceMs) {
    return schedulerCalls.moveDueToReady(shard, limit, graceMs);
  }

  /**
   * As {@link #moveDueToReady(int, int, long)} on several shards in one round trip (a pipeline; on
   * a cluster each call goes to the master of its shard), the answers in the order of
   * {@code shards}: a shard that falls due beside others does not wait for their calls. The first
   * failure is thrown; {@link #moveDueToReadyEach} says it shard by shard.
   */
  public List<Forwarded> moveDueToReady(List<Integer> shards, int limit, long graceMs) {
    return schedulerCalls.moveDueToReady(shards, limit, graceMs);
  }

  /**
   * As {@link #moveDueToReady(List, int, long)}, each shard with its own reply: on a cluster whose
   * master of one shard is lost, the others' forwards are done and answered all the same.
   */
  public List<ShardReply<Forwarded>> moveDueToReadyEach(List<Integer> shards, int limit, long graceMs) {
    return schedulerCalls.moveDueToReadyEach(shards, limit, graceMs);
  }

  /**
   * Runs {@code work} (several calls that wait on one another, such as one shard's recovery) for
   * each of {@code shards}, each answered alone. On a Redis Cluster, for a queue of several
   * shards, each master's shards go on that master's own thread ({@link NodeFanOut#runEachApart}): a
   * master that does not answer within 200 ms leaves its shards' work running, answered
   * {@link NodeInFlightException}, while the other masters' answers are used. Elsewhere (one
   * shard, or one server) the work runs here, shard after shard, as it always did.
   */
  public <T> List<ShardReply<T>> eachShardApart(List<Integer> shards, IntFunction<T> work) {
    return schedulerCalls.eachShardApart(shards, work);
  }

  /** Blocks up to {@code timeoutSeconds} for a wake token; true when one came. */
  public boolean awaitWake(double timeoutSeconds) {
    return schedulerCalls.awaitWake(timeoutSeconds);
  }

  /** Blocks up to {@code timeoutSeconds} for a wake token of one shard; true when one came. */
  public boolean awaitWake(int shard, double timeoutSeconds) {
    return schedulerCalls.awaitWake(shard, timeoutSeconds);
  }

  /**
   * Subscribes {@code listener} to the wake channels of all shards, blocking for as long as the
   * subscription lasts (until it is unsubscribed or the connection drops). Each message names the
   * channel, which {@link #shardOfWakeChannel} turns back into its shard.
   */
  public void subscribeToWakes(JedisPubSub listener) {
    schedulerCalls.subscribeToWakes(listener);
  }

  /** The shard whose wake channel {@code channel} is, or -1. */
  public int shardOfWakeChannel(String channel) {
    return schedulerCalls.shardOfWakeChannel(channel);
  }

  public boolean holdLease(String owner, long ttlMs) {
    return schedulerCalls.holdLease(owner, ttlMs);
  }

  /** Takes or renews the lease of one shard (with one shard: the leader lease). */
  public boolean holdLease(int shard, String owner, long ttlMs) {
    return schedulerCalls.holdLease(shard, owner, ttlMs);
  }

  /**
   * Takes or renews the leases of {@code shards} in one round trip, each shard answered alone
   * (true: held), so that one shard's lost master fails only its own renewal.
   */
  public List<ShardReply<Boolean>> holdLeases(List<Integer> shards, String owner, long ttlMs) {
    return schedulerCalls.holdLeases(shards, owner, ttlMs);
  }

  /** What a release of a lease publishes on its shard's wake channel: standbys look at the lease at once. */
  public static final String LEASE_RELEASED = "released";

  public boolean releaseLease(String owner) {
    return schedulerCalls.releaseLease(owner);
  }

  public boolean releaseLease(int shard, String owner) {
    return schedulerCalls.releaseLease(shard, owner);
  }

  /**
   * Gives up the leases of {@code shards} in one round trip, each answered alone (true: it was
   * held and is released): on a cluster each master's on its own thread, so that a hung master
   * holds up only its own shards' releases (the lease lapses by itself there).
   */
  public List<ShardReply<Boolean>> releaseLeases(List<Integer> shards, String owner) {
    return schedulerCalls.releaseLeases(shards, owner);
  }

  /**
   * Registers scheduler {@code owner} as alive for {@code ttlMs} and returns how many schedulers
   * are alive now (itself included): the shards are shared out among them.
   */
  public int schedulersAlive(String owner, long ttlMs) {
    return schedulerCalls.schedulersAlive(owner, ttlMs);
  }

  /**
   * Takes scheduler {@code owner} off the list of live ones (it is stopping). On a cluster on its
   * master's thread: a master that hangs leaves it there until its beat's TTL ends (the others
   * share the shards out among themselves a little later), instead of holding the stop until
   * {@code redis.socketTimeout} and the client's retries.
   */
  public void schedulerGone(String owner) {
    schedulerCalls.schedulerGone(owner);
  }

  /** Consumers of shard 0 whose heartbeat expiry is at or before {@code redisNowMs}. */
  public List<String> expiredConsumers(long redisNowMs, int limit) {
    return consumerRegistry.expiredConsumers(redisNowMs, limit);
  }

  /** Consumers of one shard whose heartbeat expiry is at or before {@code redisNowMs}. */
  public List<String> expiredConsumers(int shard, long redisNowMs, int limit) {
    return consumerRegistry.expiredConsumers(shard, redisNowMs, limit);
  }

  /** All registered consumers, alive or not, of every shard (each once). */
  public List<String> consumers() {
    return consumerRegistry.consumers();
  }

  /**
   * Takes back every delivery of {@code consumerId} (in bounded batches): the one whose handler
   * was running is charged an attempt and a lost delivery (to dead past its attempts or the
   * poison-pill limit), the others go back to the front of ready uncharged, in claim order.
   */
  public Requeued requeueInFlight(String consumerId, RequeueMode mode, String reason, int poisonAt) {
    return consumerRegistry.requeueInFlight(consumerId, mode, reason, poisonAt);
  }

  /** As {@link #requeueInFlight(String, RequeueMode, String, int)}, on one shard only. */
  public Requeued requeueInFlight(int shard, String consumerId, RequeueMode mode, String reason, int poisonAt) {
    return consumerRegistry.requeueInFlight(shard, consumerId, mode, reason, poisonAt);
  }

  /**
   * As {@link #requeueInFlight(String, RequeueMode, String, int)}, but with what the worker's
   * crash record says was running (empty: nothing), which decides over the running mark, and the
   * deliveries it says had finished (their handler returned done): those are acknowledged.
   */
  public Requeued requeueInFlight(String consumerId, RequeueMode mode, String reason, int poisonAt,
      Optional<String> recordedRunning, List<String> recordedFinished) {
    return consumerRegistry.requeueInFlight(consumerId, mode, reason, poisonAt, recordedRunning, recordedFinished);
  }

  // ---- workers ---------------------------------------------------------------------------

  /**
   * What the acknowledgement folded into a call (claimReady, start, releaseClaimed, or an
   * acknowledgement of one delivery alone) answered, when that call ran on the master but fewer
   * replicas than redis.replicaAcks confirmed it in time ({@code e} a {@link ReplicaAcksException},
   * or a {@link ShardFailed} of one): the caller retries it, and a retry that finds the delivery
   * gone may be meeting this very acknowledgement. NONE for any other failure, or when the call
   * held no acknowledgement.
   */
  public static Ack unconfirmedAck(Throwable e) {
    return UnconfirmedReplies.ack(e);
  }

  /**
   * True when {@code e} says that a retry, reschedule or dead-letter call ran on the master and
   * applied its outcome, but fewer replicas than redis.replicaAcks confirmed it in time: the
   * caller retries it, and a retry that finds the delivery gone may be meeting this very outcome.
   */
  public static boolean unconfirmedOutcome(Throwable e) {
    return UnconfirmedReplies.outcome(e);
  }

  /**
   * What a move to delayed (retry, reschedule, wait) answered on the master when the call ran but
   * fewer replicas than redis.replicaAcks confirmed it ({@code e} as for {@link #unconfirmedOutcome}):
   * MOVED, or DEAD when the job went to dead instead; null for any other failure or script, or
   * when that try was fenced. A retry refused as the echo of this try reports what it did.
   */
  public static Moved unconfirmedMove(Throwable e) {
    return UnconfirmedReplies.move(e);
  }

  /** The longest record a worker reads: queue.maxPayloadBytes plus {@link #RECORD_HEAD_ROOM}. */
  public long recordMaxBytes() {
    return Long.parseLong(recordMaxBytes);
  }

  /**
   * Acknowledges {@code ackFirst} (null for none), then takes up to {@code most} due jobs at once
   * without blocking (a fair share: no more than ready's length over the registered consumers),
   * each a new delivery; the first is marked running. No jobs when nothing is ready. A
   * {@link ReplicaAcksException} (redis.replicaAcks not met) means the claim may not survive a
   * failover: the caller must run none of it and give its list back ({@link #releaseClaimed}).
   */
  public Batch claimReady(String consumerId, long heartbeatTtlMs, int most, Delivery ackFirst) {
    return claimer.claimReady(consumerId, heartbeatTtlMs, most, ackFirst);
  }

  /**
   * As {@link #claimReady(String, long, int, Delivery)} over the shards, shard {@code fromShard}
   * first, then, when it has none, the one of the others with the most due jobs: the batch comes
   * from that one shard ({@link Batch#shard()}). The acknowledgement rides on the call to its own shard, or
   * goes alone when no call reached that shard. Callers rotate {@code fromShard} past the shard
   * that served them, so a busy shard does not starve the others.
   */
  public Batch claimReady(String consumerId, long heartbeatTtlMs, int most, Delivery ackFirst, int fromShard) {
    return claimer.claimReady(consumerId, heartbeatTtlMs, most, ackFirst, fromShard);
  }

  /**
   * As {@link #claimReady(String, long, int, Delivery, int)}, trying {@code shards} shards at most.
   * The claim on the first shard goes in one round trip with the length of every other shard's
   * ready list; when the first had no due jobs, the claim goes on to the others that had some, the
   * longest backlog first, and to no empty one: a scan that finds nothing costs one round trip, as
   * on one shard, however many shards there are.
   */
  public Batch claimReady(String consumerId, long heartbeatTtlMs, int most, Delivery ackFirst, int fromShard,
      int shards) {
    return claimer.claimReady(consumerId, heartbeatTtlMs, most, ackFirst, fromShard, shards);
  }

  /**
   * As {@link #claimReady(String, long, int, Delivery, int, int)}, looking only at the other
   * shards that {@code usable} accepts (a worker leaves out those its calls fail on), and taking at
   * least {@code atLeast} of what waits (up to {@code most}) whatever the fair share: the consumer
   * runs that many in turn sooner than another consumer would be woken for them (the worker's
   * ClaimPace; 1 for the fair share alone). A call that fails throws {@link ShardFailed} naming its
   * shard.
   */
  public Batch claimReady(String consumerId, long heartbeatTtlMs, int most, Delivery ackFirst, int fromShard,
      int shards, IntPredicate usable, int atLeast) {
    return claimer.claimReady(consumerId, heartbeatTtlMs, most, ackFirst, fromShard, shards, usable, atLeast);
  }

  /**
   * Whether the Redis Cluster master of {@code shard} hangs: it has not answered a call sent to it
   * for longer than the per-shard calls wait (see {@link NodeFanOut#evalEachApart}); a claim there
   * would wait for it too. Costs no call; false off a cluster.
   */
  public boolean shardHangs(int shard) {
    return claimer.shardHangs(shard);
  }

  /**
   * Waits up to {@code timeoutSeconds} for a due job and moves it atomically into the
   * consumer's in-flight list (BLMOVE), then makes it a delivery marked running, reads its record
   * and re-registers the consumer. Empty on timeout, when the id was taken back in between, or when flow control held or deferred it;
   * a Claimed without record when the id had none (it is dropped). A {@link ReplicaAcksException}
   * means, as for {@link #claimReady}, that the claim must not run and is to be given back.
   */
  public Optional<Claimed> claim(String consumerId, double timeoutSeconds, long heartbeatTtlMs) {
    return claimer.claim(consumerId, timeoutSeconds, heartbeatTtlMs);
  }

  /** As {@link #claim(String, double, long)}, waiting on the ready list of one shard. */
  public Optional<Claimed> claim(String consumerId, double timeoutSeconds, long heartbeatTtlMs, int shard) {
    return claimer.claim(consumerId, timeoutSeconds, heartbeatTtlMs, shard);
  }

  /**
   * As {@link #claim(String, double, long, int)}, and with nothing limited or paused the same call
   * takes the rest of a fair share of what still waits in ready, up to {@code most} jobs in all
   * (claim.lua), so a consumer woken into a backlog takes a batch at once. On a queue of several
   * shards a call that fails throws {@link ShardFailed} naming {@code shard}.
   */
  public Woken claimWoken(String consumerId, double timeoutSeconds, long heartbeatTtlMs, int shard, int most) {
    return claimer.claimWoken(consumerId, timeoutSeconds, heartbeatTtlMs, shard, most);
  }

  /** As {@link #claimWoken(String, double, long, int, int)}, taking at least {@code atLeast} in all (see claimReady's). */
  public Woken claimWoken(String consumerId, double timeoutSeconds, long heartbeatTtlMs, int shard, int most,
      int atLeast) {
    return claimer.claimWoken(consumerId, timeoutSeconds, heartbeatTtlMs, shard, most, atLeast);
  }

  /**
   * Waits up to {@code timeoutSeconds} until the ready list of {@code shard} holds a job, without
   * taking one: BLMOVE from the list's left to its left puts its first element back where it was,
   * in one command, so the list and its order stay as they were. True when it held one. It tells
   * a worker's idle consumers which shard to claim from when it has fewer consumers than shards.
   */
  public boolean awaitReady(int shard, double timeoutSeconds) {
    return claimer.awaitReady(shard, timeoutSeconds);
  }

  /**
   * Acknowledges {@code ackFirst} (null for none), then confirms that {@code delivery} is still
   * this consumer's and marks it running. Not started: it was taken back, and must not run.
   */
  public Started start(String consumerId, Delivery delivery, Delivery ackFirst) {
    return starter.start(consumerId, delivery, ackFirst);
  }

  /** The starts of several consumers in one script call; the answers in the same order. */
  public List<Started> startAll(List<Start> starts) {
    return starter.startAll(starts);
  }

  /**
   * Acknowledges finished deliveries and marks started ones, for several consumers in one script
   * call; returns, per report, false where a delivery was fenced (no longer that consumer's).
   */
  public List<boolean[]> ackAll(List<Report> reports) {
    return acks.ackAll(reports);
  }

  /**
   * As {@link #ackAll}, with each delivery's answer: ACKED, FENCED or ENDED. A
   * {@link ReplicaAcksException} (redis.replicaAcks not met) means the calls ran but may not
   * survive a failover: the caller sends the same reports again, and {@link #unconfirmedAcks}
   * says what this try answered.
   */
  public List<Ack[]> ackAllAnswers(List<Report> reports) {
    return acks.ackAllAnswers(reports);
  }

  /**
   * What {@code e}, thrown by {@link #ackAllAnswers} (or {@link #ackAll}) of {@code reports}, says
   * each acknowledgement answered on the master although its replicas did not confirm it; null
   * when {@code e} is no such failure.
   */
  public List<Ack[]> unconfirmedAcks(List<Report> reports, Throwable e) {
    return acks.unconfirmedAcks(reports, e);
  }

  /**
   * Acknowledges {@code ackFirst} (null for none), then gives back every other delivery of the
   * consumer (none of which it started): to the front of ready in claim order, with no attempt or
   * lost delivery counted.
   */
  public Released releaseClaimed(String consumerId, Delivery ackFirst) {
    return acks.releaseClaimed(consumerId, ackFirst);
  }

  /**
   * As {@link #releaseClaimed(String, Delivery)}, in shard {@code shard} only; {@code ackFirst}
   * (null for none) must be a delivery of that shard.
   */
  public Released releaseClaimed(String consumerId, int shard, Delivery ackFirst) {
    return acks.releaseClaimed(consumerId, shard, ackFirst);
  }

  /**
   * Gives back to ready (its right end, to run next, in claim order) the deliveries of
   * {@code unstarted}, which consumer {@code consumerId} claimed and will not start: those still in
   * its list leave it, uncounted, as {@link #releaseClaimed} gives back. Another consumer of its
   * worker sends it for the owner, whose handler runs long. On a queue of one shard. Returns how
   * many were still there.
   */
  public int handOffUnstarted(String consumerId, List<Delivery> unstarted) {
    if (keys.shards() != 1) {
      throw new IllegalStateException("handOffUnstarted is for a queue of one shard, not " + keys.shards());
    }
    return acks.handOffUnstarted(consumerId, unstarted);
  }

  /**
   * Lifts the pause of {@code scope} ({@code *}: the whole queue, else a job type) and gives back
   * up to {@code most} of the jobs held meanwhile; call again while it gives back {@code most}.
   */
  public Resumed resume(String scope, int most) {
    return flow.resume(scope, most);
  }

  /**
   * As {@link #resume(String, int)}, in shard {@code shard} alone: its pause and its held lists
   * (a claim holds a job in its own shard). A sharded queue is resumed shard by shard.
   */
  public Resumed resume(int shard, String scope, int most) {
    return flow.resume(shard, scope, most);
  }

  /**
   * Pauses {@code scope} ({@code *}: the whole queue, else a job type) in shard {@code shard}, the
   * claims of that shard holding its jobs from now on; since when is that shard's server's clock.
   * False when it was paused there already (its since is kept), so a second call changes nothing.
   */
  public boolean pause(int shard, String scope) {
    return flow.pause(shard, scope);
  }

  public Moved retry(String consumerId, Delivery delivery, long delayMs, String error) {
    return outcomes.retry(consumerId, delivery, delayMs, error);
  }

  public Moved reschedule(String consumerId, Delivery delivery, long delayMs) {
    return outcomes.reschedule(consumerId, delivery, delayMs);
  }

  /** The handler was rate limited: back to delayed after delayMs, attempt and last error kept. */
  public Moved waitRateLimited(String consumerId, Delivery delivery, long delayMs) {
    return outcomes.waitRateLimited(consumerId, delivery, delayMs);
  }

  /** True when dead-lettered; false when fenced. */
  public boolean deadLetter(String consumerId, Delivery delivery, String error) {
    return outcomes.deadLetter(consumerId, delivery, error);
  }

  /**
   * Frees up to {@code limit} caller-chosen ids whose retention window has passed, oldest first;
   * returns how many (the caller calls again while it equals the limit).
   */
  public int forgetEnded(int limit) {
    return schedulerCalls.forgetEnded(limit);
  }

  /** As {@link #forgetEnded} on each of {@code shards} in one round trip, each answered alone (ids freed). */
  public List<ShardReply<Integer>> forgetEndedEach(List<Integer> shards, int limit) {
    return schedulerCalls.forgetEndedEach(shards, limit);
  }

  public void heartbeat(List<String> consumerIds, long ttlMs) {
    consumerRegistry.heartbeat(consumerIds, ttlMs);
  }
}
