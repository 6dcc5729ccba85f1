package dev.delayq.redis;

import dev.delayq.config.DelayqConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The Redis keyspace of one queue, split into {@code shards} slots. With one shard (the default)
 * every key is {@code <prefix>:{<queue>}:<suffix>}; with K shards, shard i's keys are
 * {@code <prefix>:{<queue>#i}:<suffix>}, so each shard lives in one Redis Cluster slot and each
 * script touches a single slot. A job's shard follows from its id ({@link #shardOf}), so work by
 * id stays one call in one slot. An instance names one shard ({@code shard}); the key methods
 * give that shard's keys. No key string is built anywhere else.
 */
public record Keys(String prefix, String queue, int shards, int shard) {
  /** The most shards a queue may have: a claim visits each, and so does a check. */
  public static final int MAX_SHARDS = 64;

  public Keys {
    if (prefix == null || prefix.isEmpty() || queue == null || queue.isEmpty()) {
      throw new IllegalArgumentException("key prefix and queue name must not be empty");
    }
    if (shards < 1 || shards > MAX_SHARDS || shard < 0 || shard >= shards) {
      throw new IllegalArgumentException("shard " + shard + " of " + shards + ": a queue has 1 to "
          + MAX_SHARDS + " shards, numbered from 0");
    }
  }

  /** A queue of one shard: today's layout, every key in the {@code {<queue>}} slot. */
  public Keys(String prefix, String queue) {
    this(prefix, queue, 1, 0);
  }

  /** Shard 0 of the configured queue (queue.keyPrefix, queue.name, queue.shards). */
  public static Keys of(DelayqConfig config) {
    return sharded(config.queue().keyPrefix(), config.queue().name(), config.queue().shards());
  }

  /** Shard 0 of a queue of {@code shards} shards. */
  public static Keys sharded(String prefix, String queue, int shards) {
    return new Keys(prefix, queue, shards, 0);
  }

  /** Shard {@code i} of the same queue. */
  public Keys shard(int i) {
    return i == shard ? this : new Keys(prefix, queue, shards, i);
  }

  /** Every shard of the queue, shard 0 first. */
  public List<Keys> allShards() {
    List<Keys> out = new ArrayList<>(shards);
    for (int i = 0; i < shards; i++) {
      out.add(shard(i));
    }
    return out;
  }

  /** The shard job {@code id} lives in: CRC-32 of its UTF-8 bytes, mod the shard count. */
  public int shardIndexOf(String id) {
    if (shards == 1) {
      return 0;
    }
    CRC32 crc = new CRC32();
    crc.update(id.getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() % shards);
  }

  /** The keys of the shard job {@code id} lives in. */
  public Keys shardOf(String id) {
    return shard(shardIndexOf(id));
  }

  private String key(String suffix) {
    return prefix + ":{" + (shards == 1 ? queue : queue + "#" + shard) + "}:" + suffix;
  }

  /**
   * STRING in the {@code {<queue>}} slot (shard 0's with one shard): the number of shards the
   * queue was created with, so that a process configured with another number is refused.
   */
  public String layout() {
    return prefix + ":{" + queue + "}:shards";
  }

  /**
   * The delayed jobs' key. Scripts name it, and the time wheel's keys are named after it
   * ({@link #delayedIndex}, {@link #delayedBucket}, {@link #delayedCount}; include/wheel.lua builds
   * the same names). As a key of its own it is the ZSET (job id -> due time, epoch ms) of the layout
   * before the wheel: still read and drained, never added to.
   */
  public String delayed() {
    return key("delayed");
  }

  /** ZSET, every score 0: the wheel's buckets by their first position ({@code <due + 5e15, 16 digits>|<id>}), lex order. */
  public String delayedIndex() {
    return delayed() + ":index";
  }

  /** ZSET: one bucket of the wheel, job id -> due time, epoch ms; at most 128 ids. */
  public String delayedBucket(String position) {
    return delayed() + ":" + position;
  }

  /** STRING: the number of ids in the wheel's buckets. */
  public String delayedCount() {
    return delayed() + ":count";
  }

  /** HASH: job id -> JSON record (type, attempt, maxAttempts, createdAt, dueAt, …, payload last). */
  public String jobs() {
    return key("jobs");
  }

  /** LIST: ids that are due; pushed on the left, claimed from the right. */
  public String ready() {
    return key("ready");
  }

  /**
   * LIST: the deliveries one consumer holds, {@code <token>|<id>} (see {@link Delivery}), newest
   * on the left; a bare id is a claim BLMOVE made that has no token yet.
   */
  public String inFlight(String consumerId) {
    return key("inflight:" + consumerId);
  }

  /** The SCAN pattern that matches every consumer's in-flight list. */
  public String inFlightPattern() {
    return key("inflight:*");
  }

  /** ZSET: consumer id -> heartbeat expiry in epoch milliseconds. */
  public String consumers() {
    return key("consumers");
  }

  /**
   * HASH: consumer id -> the delivery whose handler that consumer started last. Recovery charges
   * only that delivery; once it has left the in-flight list the entry is merely stale.
   */
  public String running() {
    return key("running");
  }

  /** STRING: the delivery counter; every claim takes the next token from it. */
  public String deliveries() {
    return key("deliveries");
  }

  /** ZSET: job id -> time it was dead-lettered, epoch milliseconds. */
  public String dead() {
    return key("dead");
  }

  /**
   * HASH: caller-chosen job id -> how its job ended, {@code <outcome>:<epoch ms>} (outcome done,
   * cancelled or purged), while the id stays taken ({@code queue.idRetention}).
   */
  public String ended() {
    return key("ended");
  }

  /**
   * ZSET: the same ids -> when they are free again, epoch ms: the index the scheduler trims in
   * bounded chunks, oldest first.
   */
  public String endedExpiry() {
    return key("ended:expiry");
  }

  /** LIST: at most one token, pushed when a job becomes the earliest due: wakes the scheduler. */
  public String wake() {
    return key("wake");
  }

  /**
   * Pub/sub channel, named like {@link #wake()} (the scripts publish on the name of the wake key
   * they are given): the due time of each job that becomes the earliest due, for the hot
   * standbys, which must not take the lease holder's token.
   */
  public String wakeChannel() {
    return wake();
  }

  /**
   * HASH: counters since the queue began, for metrics: {@code count:<event>:<type>},
   * {@code lateness:<bucket>}, {@code duration:<type>:<bucket>} and their sums (see
   * {@link dev.delayq.metrics.StatsRecorder}).
   */
  public String stats() {
    return key("stats");
  }

  /** HASH with a TTL: the same counters for one second (epoch seconds), for live charts. */
  public String statsSecond(long epochSecond) {
    return key("stats:" + epochSecond);
  }

  /**
   * ZSET of a sharded queue (in shard 0): scheduler id -> expiry of its last beat, epoch ms; the
   * shard leases are shared out among those alive. Unused with one shard (one leader lease).
   */
  public String schedulers() {
    return key("schedulers");
  }

  /** STRING with TTL: the id of the scheduler holding this shard's lease (with one shard: the leader lease). */
  public String leader() {
    return key("leader");
  }

  // ---- workflows (include/workflow.lua builds the same names from flowBase()) -------------

  /** ZSET: batch id -> created at, epoch ms, for the batches neither finished nor cancelled. */
  public String batches() {
    return key("batches");
  }

  /** HASH: a batch's state, counts, times and callbacks (include/workflow.lua). */
  public String batch(String id) {
    return key("batch:" + id);
  }

  /** SET: the ids of a batch's jobs that have not ended. */
  public String batchPending(String id) {
    return batch(id) + ":pending";
  }

  /** HASH: id of a job waiting for other jobs -> {@code <policy>:<delay ms>:<since ms>} (a place). */
  public String waiting() {
    return key("waiting");
  }

  /** SET: the jobs the waiting job {@code id} still waits for. */
  public String waitFor(String id) {
    return key("waitfor:" + id);
  }

  /** SET: the jobs waiting for job {@code id}. */
  public String waiters(String id) {
    return key("waiters:" + id);
  }

  /** HASH: id -> {@code <outcome>:<ended at ms>:<result JSON>} of a workflow's job or a job with a result. */
  public String results() {
    return key("results");
  }

  /** ZSET: the ids of {@link #results} -> when they are forgotten, epoch ms. */
  public String resultsExpiry() {
    return key("results:expiry");
  }

  // ---- flow control (include/flow.lua builds the per-type names from flowBase()) ----------

  /** The base of every key of this queue, {@code <prefix>:{<queue>}:}: flow.lua appends the suffixes below. */
  public String flowBase() {
    return key("");
  }

  /** HASH: {@code *} (the whole queue) or a job type -> paused since, epoch ms. */
  public String paused() {
    return key("paused");
  }

  /** SET: the job types whose {@link #held} list holds jobs. */
  public String heldIndex() {
    return key("held");
  }

  /** LIST: jobs of {@code type} taken from ready while paused or at its cap; oldest on the right. */
  public String held(String type) {
    return key("held:" + type);
  }

  /** The SCAN pattern that matches every type's held list. */
  public String heldPattern() {
    return key("held:*");
  }

  /** The job type of a {@link #held} list's key. */
  public String typeOfHeld(String heldKey) {
    return heldKey.substring(key("held:").length());
  }

  // ---- handlers: which job types a live worker runs, and the jobs waiting for one ----------

  /** ZSET: job type -> when the latest announcement of a worker that runs it expires, epoch ms. */
  public String handlers() {
    return key("handlers");
  }

  /** SET: the job types whose {@link #noHandler} set holds jobs. */
  public String noHandlerIndex() {
    return key("nohandler");
  }

  /** ZSET: due jobs of {@code type} that a worker without its handler left, id -> waiting since, epoch ms. */
  public String noHandler(String type) {
    return key("nohandler:" + type);
  }

  /** The SCAN pattern that matches every type's {@link #noHandler} set. */
  public String noHandlerPattern() {
    return key("nohandler:*");
  }

  /** The job type of a {@link #noHandler} set's key. */
  public String typeOfNoHandler(String noHandlerKey) {
    return noHandlerKey.substring(key("nohandler:").length());
  }

  /**
   * ZSET: the starts a rate limit admitted within its last period, delivery -> epoch ms; for a
   * type, or ({@code limitKey} not null) one value of the payload field it is keyed by.
   */
  public String rateWindow(String type, String limitKey) {
    return key("rate:" + type + (limitKey == null ? "" : "|" + limitKey));
  }

  /** STRING with TTL: when the last job deferred by that rate limit is due, epoch ms. */
  public String rateNext(String type, String limitKey) {
    return key("ratenext:" + type + (limitKey == null ? "" : "|" + limitKey));
  }

  /** HASH: the deliveries holding a slot of {@code type}'s concurrency cap -> their in-flight list. */
  public String capHolders(String type) {
    return key("cap:" + type);
  }

  /**
   * HASH: schedule id -> the recurring schedule's definition, JSON (see
   * {@code dev.delayq.schedule.Schedule.toJson()}).
   */
  public String schedules() {
    return key("schedules");
  }

  /**
   * ZSET: schedule id -> the time of its next tick whose job is not created yet, epoch ms. A
   * paused schedule has no entry. The tick script moves it on as it creates the tick's job.
   */
  public String scheduleNext() {
    return key("schedules:next");
  }

  /** HASH: schedule id -> the time of the latest tick whose job was created, epoch ms. */
  public String scheduleLast() {
    return key("schedules:last");
  }

  /**
   * STRING with a TTL: a cancel asked for the running job {@code id} (its value: when, epoch ms).
   * Workers look for it at each heartbeat, in case they missed the {@link #cancelChannel()} message.
   */
  public String cancelRequest(String id) {
    return key("cancel:" + id);
  }

  /** Pub/sub channel: the id of each running job whose cancel was just asked for. */
  public String cancelChannel() {
    return key("cancels");
  }
}
