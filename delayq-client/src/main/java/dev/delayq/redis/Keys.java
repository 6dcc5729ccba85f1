package dev.delayq.redis;

/**
 * The Redis keyspace of one queue: every key is {@code <prefix>:{<queue>}:<suffix>}, so one
 * queue lives in one Redis Cluster slot and each script touches a single slot. No key string
 * is built anywhere else.
 */
public record Keys(String prefix, String queue) {

  public Keys {
    if (prefix == null || prefix.isEmpty() || queue == null || queue.isEmpty()) {
      throw new IllegalArgumentException("key prefix and queue name must not be empty");
    }
  }

  private String key(String suffix) {
    return prefix + ":{" + queue + "}:" + suffix;
  }

  /** ZSET: job id -> due time in epoch milliseconds. */
  public String delayed() {
    return key("delayed");
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

  /** STRING with TTL: the id of the scheduler holding the leader lease. */
  public String leader() {
    return key("leader");
  }

  /**
   * HASH: schedule id -> the recurring schedule's definition, JSON (see
   * {@link dev.delayq.schedule.Schedule#toJson()}).
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
