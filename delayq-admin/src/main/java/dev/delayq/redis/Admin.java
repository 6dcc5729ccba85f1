package dev.delayq.redis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * The operator's actions on one queue (dead jobs, one job's whereabouts, recovery, live
 * statistics), for {@code bin/delayq} and the dashboard. Every state change is one script
 * call; loops over many jobs run here, a bounded batch per call. Thread-safe; each call borrows
 * a pooled connection.
 */
public final class Admin {
  /** Most ids one admin script call handles; Java loops while a call comes back full. */
  static final int BATCH = 1000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final UnifiedJedis redis;
  private final Keys keys;
  private final int poisonPillAfter;
  private final Scripts scripts;
  private final RedisBroker broker;
  private final Inspector inspector;
  private final StatsReader statsReader;

  public Admin(UnifiedJedis redis, Keys keys, int poisonPillAfter) {
    this(new RedisBroker(redis, keys), poisonPillAfter);
  }

  /** The admin side on a process's connection (its replica acks apply to every change). */
  public Admin(RedisConnection redis, Keys keys, int poisonPillAfter) {
    this(new RedisBroker(redis, keys), poisonPillAfter);
  }

  /** The admin side over {@code broker}, whose limits (id retention) its changes keep. */
  public Admin(RedisBroker broker, int poisonPillAfter) {
    this.redis = broker.redis();
    this.keys = broker.keys();
    this.poisonPillAfter = poisonPillAfter;
    this.broker = broker;
    this.scripts = broker.scripts();
    this.inspector = new Inspector(redis, keys);
    this.statsReader = new StatsReader(redis, keys, inspector);
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
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    if (keys.shards() == 1) {
      return deadList(keys, typeOrNull, limit);
    }
    // the newest of each shard, merged: the newest overall are among them
    List<DeadJob> all = new ArrayList<>();
    for (Keys shard : keys.allShards()) {
      all.addAll(deadList(shard, typeOrNull, limit));
    }
    all.sort((a, b) -> Long.compare(b.deadAt(), a.deadAt()));
    return all.size() > limit ? new ArrayList<>(all.subList(0, limit)) : all;
  }

  private List<DeadJob> deadList(Keys keys, String typeOrNull, int limit) {
    List<DeadJob> out = new ArrayList<>();
    for (long from = 0; out.size() < limit; from += BATCH) {
      List<Tuple> page = redis.zrevrangeWithScores(keys.dead(), from, from + BATCH - 1);
      if (page.isEmpty()) {
        break;
      }
      String[] ids = page.stream().map(Tuple::getElement).toArray(String[]::new);
      List<String> raws = redis.hmget(keys.jobs(), ids);
      for (int i = 0; i < ids.length && out.size() < limit; i++) {
        DeadJob job = deadJob(ids[i], (long) page.get(i).getScore(), raws.get(i));
        if (typeOrNull == null || typeOrNull.equals(job.type())) {
          out.add(job);
        }
      }
      if (page.size() < BATCH) {
        break;
      }
    }
    return out;
  }

  static DeadJob deadJob(String id, long deadAt, String raw) {
    if (raw == null) {
      return new DeadJob(id, "?", deadAt, 0, 0, "no record in jobs", null);
    }
    try {
      JobRecord r = JobRecord.parse(id, raw);
      return new DeadJob(id, r.type(), deadAt, r.attempt(), r.maxAttempts(), r.lastError(), r.payloadJson());
    } catch (JobRecord.MalformedRecordException e) {
      JsonNode node = tree(raw);
      String error = node != null && node.hasNonNull("lastError") ? node.get("lastError").asText() : e.getMessage();
      String text = node != null && node.hasNonNull("malformed") ? node.get("malformed").asText() : raw;
      return new DeadJob(id, "?", deadAt, 0, 0, error, text);
    }
  }

  /**
   * Runs a dead job again at once: it leaves dead for ready with attempt 1 (lost deliveries 0),
   * due now, its last error kept in the record as {@code previousError}. False when the id is
   * not dead. Throws IllegalStateException when its record is unreadable (it stays dead).
   */
  public boolean retryDead(String id) {
    long code = retryDead(keys.shardOf(id), List.of(id)).get(0);
    if (code == -2) {
      throw new IllegalStateException("dead job " + id + " has an unreadable record: it cannot run; "
          + "it stays dead (look at it with inspect, remove it with purge)");
    }
    return code == 1;
  }

  /**
   * Retries every dead job, in batches of at most 1,000 per script call; returns how many went
   * back to ready. Jobs with unreadable records stay dead and are stepped over.
   */
  public int retryAllDead() {
    // Only jobs dead when the call began, each once: a retried job that dies again at once
    // (no handler for its type, say) must not be retried again by this same call.
    String cutoff = Long.toString(redisNowMs());
    int retried = 0;
    for (Keys shard : keys.allShards()) {
      retried += retryAllDead(shard, cutoff);
    }
    return retried;
  }

  private int retryAllDead(Keys keys, String cutoff) {
    Set<String> seen = new HashSet<>();
    int retried = 0;
    long skipped = 0;
    while (true) {
      List<String> ids = new ArrayList<>();
      for (String id : redis.zrangeByScore(keys.dead(), "-inf", cutoff, (int) skipped, BATCH)) {
        if (seen.add(id)) {
          ids.add(id);
        } else {
          skipped++;
        }
      }
      if (ids.isEmpty()) {
        return retried;
      }
      for (long code : retryDead(keys, ids)) {
        if (code == 1) {
          retried++;
        } else if (code == -2) {
          skipped++;
        }
      }
    }
  }

  private List<Long> retryDead(Keys keys, List<String> ids) {
    List<?> r = (List<?>) scripts.eval(Script.RETRY_DEAD,
        List.of(keys.dead(), keys.jobs(), keys.ready()), ids);
    List<Long> codes = new ArrayList<>(r.size());
    for (Object o : r) {
      codes.add((Long) o);
    }
    return codes;
  }

  /**
   * Removes dead jobs and their records: those dead-lettered at least {@code olderThanOrNull}
   * ago by Redis's clock, or all of them when null. Returns how many went.
   */
  public int purgeDead(Duration olderThanOrNull) {
    if (olderThanOrNull != null && olderThanOrNull.isNegative()) {
      throw new IllegalArgumentException("--older-than must not be negative, got " + olderThanOrNull);
    }
    String age = olderThanOrNull == null ? "all" : Long.toString(olderThanOrNull.toMillis());
    int purged = 0;
    for (Keys shard : keys.allShards()) {
      purged += purgeDead(shard, age);
    }
    return purged;
  }

  private int purgeDead(Keys keys, String age) {
    int purged = 0;
    while (true) {
      long n = (Long) scripts.eval(Script.PURGE_DEAD,
          List.of(keys.dead(), keys.jobs(), keys.ended(), keys.endedExpiry()),
          List.of(age, Integer.toString(BATCH), broker.idRetentionMs()));
      purged += (int) n;
      if (n < BATCH) {
        return purged;
      }
    }
  }

  // ---- one job -----------------------------------------------------------------------------

  /**
   * Where a job is. ORPHAN: a record whose id is in no structure (a breach of the invariant).
   * ENDED: the job is gone, its caller-chosen id still taken (see {@link Ended}).
   */
  public enum State { DELAYED, READY, IN_FLIGHT, DEAD, ORPHAN, ENDED, HELD, WAITING_FOR_HANDLER }

  /** How a job whose id is kept ended ("done", "cancelled", "purged"), when, and when the id is free. */
  public record Ended(String outcome, long endedAt, long freeAt) {}

  /**
   * One job as found now. {@code consumer} is set for IN_FLIGHT; {@code dueAt} is the delayed
   * score when delayed, else the record's; {@code deadAt} is set for DEAD; {@code rawRecord} is
   * null when the id sits somewhere without a record (a breach). Type "?" when unreadable.
   */
  public record JobView(String id, State state, String consumer, long dueAt, Long deadAt,
      int attempt, int maxAttempts, String type, String lastError, String rawRecord, Ended ended) {}

  /** The job's state and record; empty when Redis knows nothing of the id. */
  public Optional<JobView> inspect(String id) {
    Keys keys = this.keys.shardOf(id);
    List<String> lists = inspector.inFlightKeys(keys);
    String raw;
    Double delayedAt;
    Long readyPos;
    Double deadAt;
    String consumer = null;
    // readDelayed.lua on the shard's master, so that the transaction can call it by SHA
    scripts.load(Script.READ_DELAYED, keys.delayed());
    Scripts.Call wheel = DelayedReads.scoreCall(keys, id);
    try (AbstractTransaction tx = Slots.multi(redis, keys.jobs())) {
      Response<String> rawR = tx.hget(keys.jobs(), id);
      Response<Object> delayedR = tx.evalsha(Script.READ_DELAYED.sha(), wheel.keys(), wheel.args());
      Response<Long> readyR = tx.lpos(keys.ready(), id);
      Response<Double> deadR = tx.zscore(keys.dead(), id);
      // in-flight lists hold deliveries, <token>|<id>, and are short: read them whole
      List<Response<List<String>>> inFlight = new ArrayList<>(lists.size());
      for (String l : lists) {
        inFlight.add(tx.lrange(l, 0, -1));
      }
      tx.exec();
      raw = rawR.get();
      delayedAt = delayedR.get() == null ? null : ((Long) delayedR.get()).doubleValue();
      readyPos = readyR.get();
      deadAt = deadR.get();
      String listPrefix = keys.inFlight("");
      for (int i = 0; i < lists.size() && consumer == null; i++) {
        for (String delivery : inFlight.get(i).get()) {
          if (Delivery.idOf(delivery).equals(id)) {
            consumer = lists.get(i).substring(listPrefix.length());
            break;
          }
        }
      }
    }
    State state = delayedAt != null ? State.DELAYED : readyPos != null ? State.READY
        : consumer != null ? State.IN_FLIGHT : deadAt != null ? State.DEAD : raw != null ? State.ORPHAN : null;
    if (state == null) {
      return ended(id).map(e -> new JobView(id, State.ENDED, null, 0, null, 0, 0, "?", null, null, e));
    }
    JobRecord r = null;
    if (raw != null) {
      try {
        r = JobRecord.parse(id, raw);
      } catch (JobRecord.MalformedRecordException e) {
        r = null;
      }
    }
    if (state == State.ORPHAN && r != null && redis.lpos(keys.held(r.type()), id) != null) {
      state = State.HELD; // flow control holds it: paused, or its type at its concurrency cap
    } else if (state == State.ORPHAN && r != null && HandlerWait.of(broker).isWaiting(id, r.type())) {
      state = State.WAITING_FOR_HANDLER; // no live worker it reached had its type's handler
    }
    String lastError = r != null ? r.lastError() : raw == null ? null : deadJob(id, 0, raw).lastError();
    long due = delayedAt != null ? delayedAt.longValue() : r != null ? r.dueAt() : 0;
    return Optional.of(new JobView(id, state, state == State.IN_FLIGHT ? consumer : null, due,
        deadAt == null ? null : deadAt.longValue(), r == null ? 0 : r.attempt(),
        r == null ? 0 : r.maxAttempts(), r == null ? "?" : r.type(), lastError, raw, null));
  }

  /** The end of a job whose id is still taken; empty when none is remembered or its window passed. */
  private Optional<Ended> ended(String id) {
    Keys keys = this.keys.shardOf(id);
    Response<String> outcome;
    Response<Double> freeAt;
    try (AbstractTransaction tx = Slots.multi(redis, keys.ended())) {
      outcome = tx.hget(keys.ended(), id);
      freeAt = tx.zscore(keys.endedExpiry(), id);
      tx.exec();
    }
    if (outcome.get() == null || freeAt.get() == null || freeAt.get() <= redisNowMs()) {
      return Optional.empty();
    }
    int colon = outcome.get().lastIndexOf(':');
    long at = colon < 0 ? 0 : Long.parseLong(outcome.get().substring(colon + 1));
    String how = colon < 0 ? outcome.get() : outcome.get().substring(0, colon);
    return Optional.of(new Ended(how, at, freeAt.get().longValue()));
  }

  // ---- pause and resume (flow control, include/flow.lua) ------------------------------------

  /** The whole queue's scope in {@link #pause} and {@link #resume}. */
  public static final String WHOLE_QUEUE = "*";
  private static final java.util.regex.Pattern TYPE = java.util.regex.Pattern.compile("[a-z0-9_.:-]{1,64}");

  /**
   * Pauses {@code scope} ({@link #WHOLE_QUEUE} or a job type): its jobs are still accepted and
   * fall due, and none starts until {@link #resume}; jobs already running finish. Kept in Redis,
   * so it outlives every process. Returns false when it was paused already (since then).
   *
   * <p>A sharded queue is paused shard by shard, in shard order, each shard's claims holding its
   * jobs from its own write on. A shard whose master fails does not stop the others: the call
   * then throws {@link ShardsNotDoneException} naming it, {@link #flow} shows the scope paused on
   * only some shards, and calling again pauses the shards not done (each keeps its first since).
   * True when any shard was not paused before.
   */
  public boolean pause(String scope) {
    checkScope(scope);
    List<Boolean> now = EachShard.apply(keys, "pause of " + shown(scope), shard -> broker.pause(shard, scope));
    return now.contains(true);
  }

  /**
   * Lifts the pause of {@code scope} and gives back to ready every job held meanwhile. Returns
   * {was paused, jobs given back}. A sharded queue is resumed shard by shard, in shard order, each
   * shard's held jobs given back in bounded batches before the next shard is resumed; a shard
   * whose master fails keeps its pause and its held jobs, the call throws
   * {@link ShardsNotDoneException} naming it, and calling again resumes it.
   */
  public RedisBroker.Resumed resume(String scope) {
    checkScope(scope);
    List<RedisBroker.Resumed> shards = EachShard.apply(keys, "resume of " + shown(scope), shard -> resume(shard, scope));
    boolean was = shards.stream().anyMatch(RedisBroker.Resumed::wasPaused);
    return new RedisBroker.Resumed(was, shards.stream().mapToInt(RedisBroker.Resumed::givenBack).sum());
  }

  private RedisBroker.Resumed resume(int shard, String scope) {
    boolean was = false;
    int given = 0;
    while (true) {
      RedisBroker.Resumed r = broker.resume(shard, scope, BATCH);
      was |= r.wasPaused();
      given += r.givenBack();
      if (r.givenBack() < BATCH) {
        return new RedisBroker.Resumed(was, given);
      }
    }
  }

  /** Paused scopes and held jobs, over every shard (a scope paused on some shards only shows as such). */
  public Inspector.Flow flow() {
    return inspector.flow();
  }

  private String shown(String scope) {
    return (WHOLE_QUEUE.equals(scope) ? "queue " : "type " + scope + " in queue ") + keys.queue();
  }

  private static void checkScope(String scope) {
    if (!WHOLE_QUEUE.equals(scope) && (scope == null || !TYPE.matcher(scope).matches())) {
      throw new IllegalArgumentException("'" + scope + "' is not a job type ([a-z0-9_.:-], 1 to 64 characters)");
    }
  }

  // ---- recovery ----------------------------------------------------------------------------

  /**
   * What {@link #recover()} did: consumers taken back and jobs moved, per kind. {@code requeued}
   * went back to ready; {@code charged} of the jobs taken back had their handler running and
   * counted an attempt (to ready or, {@code deadLettered}, to dead).
   */
  public record RecoverReport(int expiredConsumers, int unregisteredConsumers, int requeued,
      int charged, int deadLettered, int orphansRequeued, int orphansDeadLettered) {
    public int total() {
      return requeued + deadLettered + orphansRequeued + orphansDeadLettered;
    }
  }

  /**
   * Runs the recoverer now, by the one {@link Recovery} policy: takes back the in-flight jobs of
   * consumers whose heartbeat expired and of in-flight lists with no registered consumer (seen so
   * twice, a moment apart, so a consumer registering right now keeps its claim), charging only the
   * job each had running; then
   * puts every hash orphan the consistency check confirms back on ready, each re-checked
   * atomically by its script.
   */
  public RecoverReport recover() {
    Recovery recovery = new Recovery(broker, inspector, poisonPillAfter);
    List<Recovery.TakenBack> expired = recovery.expired(redisNowMs(), Integer.MAX_VALUE, " (delayq recover)");
    List<Recovery.TakenBack> unregistered = recovery.sweepUnregistered(" (delayq recover)");
    if (recovery.unregisteredSeen() > 0) {
      sleepQuietly(100); // a consumer registering right now keeps its claim: look again
      unregistered = recovery.sweepUnregistered(" (delayq recover)");
    }
    int requeued = 0;
    int charged = 0;
    int dead = 0;
    for (Recovery.TakenBack t : concat(expired, unregistered)) {
      requeued += t.result().taken() - t.result().deadLettered();
      charged += t.result().charged();
      dead += t.result().deadLettered();
    }
    int orphansRequeued = 0;
    int orphansDead = 0;
    for (InvariantCheck.Breach b : new InvariantCheck(redis, keys).breaches()) {
      if (b.kind() == InvariantCheck.Breach.Kind.ORPHAN_RECORD) {
        long code = requeueOrphan(b.id());
        if (code == 1) {
          orphansRequeued++;
        } else if (code == 2) {
          orphansDead++;
        }
      }
    }
    return new RecoverReport(expired.size(), unregistered.size(), requeued, charged, dead, orphansRequeued,
        orphansDead);
  }

  private static <T> List<T> concat(List<T> a, List<T> b) {
    List<T> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /** 1 requeued, 2 dead-lettered (unreadable record), 0 not an orphan (see requeueOrphan.lua). */
  long requeueOrphan(String id) {
    Keys keys = this.keys.shardOf(id);
    List<String> keyList = new ArrayList<>(List.of(keys.jobs(), keys.delayed(), keys.ready(), keys.dead()));
    keyList.addAll(inspector.inFlightKeys(keys));
    return (Long) scripts.eval(Script.REQUEUE_ORPHAN, keyList, List.of(id, "orphan record (delayq recover)"));
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

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
