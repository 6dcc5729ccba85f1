package dev.delayq.redis;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/** The operator's actions on dead jobs: list them, run them again, purge them ({@link Admin}'s dead-job section). */
final class DeadJobActions {
  private final UnifiedJedis redis;
  private final Keys keys;
  private final RedisBroker broker;

  DeadJobActions(UnifiedJedis redis, Keys keys, RedisBroker broker) {
    this.redis = redis;
    this.keys = keys;
    this.broker = broker;
  }

  /** Dead jobs, newest first, at most {@code limit}; only those of {@code typeOrNull} if given. */
  List<Admin.DeadJob> deadList(String typeOrNull, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    if (keys.shards() == 1) {
      return deadList(keys, typeOrNull, limit);
    }
    // the newest of each shard, merged: the newest overall are among them
    List<Admin.DeadJob> all = new ArrayList<>();
    for (Keys shard : keys.allShards()) {
      all.addAll(deadList(shard, typeOrNull, limit));
    }
    all.sort((a, b) -> Long.compare(b.deadAt(), a.deadAt()));
    return all.size() > limit ? new ArrayList<>(all.subList(0, limit)) : all;
  }

  private List<Admin.DeadJob> deadList(Keys keys, String typeOrNull, int limit) {
    List<Admin.DeadJob> out = new ArrayList<>();
    for (long from = 0; out.size() < limit; from += Admin.BATCH) {
      List<Tuple> page = redis.zrevrangeWithScores(keys.dead(), from, from + Admin.BATCH - 1);
      if (page.isEmpty()) {
        break;
      }
      String[] ids = page.stream().map(Tuple::getElement).toArray(String[]::new);
      List<String> raws = redis.hmget(keys.jobs(), ids);
      for (int i = 0; i < ids.length && out.size() < limit; i++) {
        Admin.DeadJob job = deadJob(ids[i], (long) page.get(i).getScore(), raws.get(i));
        if (typeOrNull == null || typeOrNull.equals(job.type())) {
          out.add(job);
        }
      }
      if (page.size() < Admin.BATCH) {
        break;
      }
    }
    return out;
  }

  static Admin.DeadJob deadJob(String id, long deadAt, String raw) {
    if (raw == null) {
      return new Admin.DeadJob(id, "?", deadAt, 0, 0, "no record in jobs", null);
    }
    try {
      JobRecord r = JobRecord.parse(id, raw);
      return new Admin.DeadJob(id, r.type(), deadAt, r.attempt(), r.maxAttempts(), r.lastError(), r.payloadJson());
    } catch (JobRecord.MalformedRecordException e) {
      JsonNode node = Admin.tree(raw);
      String error = node != null && node.hasNonNull("lastError") ? node.get("lastError").asText() : e.getMessage();
      String text = node != null && node.hasNonNull("malformed") ? node.get("malformed").asText() : raw;
      return new Admin.DeadJob(id, "?", deadAt, 0, 0, error, text);
    }
  }

  /**
   * Runs a dead job again at once: it leaves dead for ready with attempt 1 (lost deliveries 0),
   * due now, its last error kept in the record as {@code previousError}. False when the id is
   * not dead. Throws IllegalStateException when its record is unreadable (it stays dead).
   */
  boolean retryDead(String id) {
    DeadRetry answer = broker.retryDead(keys.shardOf(id), List.of(id)).get(0);
    if (answer == DeadRetry.UNREADABLE) {
      throw new IllegalStateException("dead job " + id + " has an unreadable record: it cannot run; "
          + "it stays dead (look at it with inspect, remove it with purge)");
    }
    return answer == DeadRetry.RETRIED;
  }

  /**
   * Retries every dead job, in batches of at most 1,000 per script call; returns how many went
   * back to ready. Jobs with unreadable records stay dead and are stepped over.
   */
  int retryAllDead() {
    // Only jobs dead when the call began, each once: a retried job that dies again at once
    // (no handler for its type, say) must not be retried again by this same call.
    String cutoff = Long.toString(broker.redisNowMs());
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
      for (String id : redis.zrangeByScore(keys.dead(), "-inf", cutoff, (int) skipped, Admin.BATCH)) {
        if (seen.add(id)) {
          ids.add(id);
        } else {
          skipped++;
        }
      }
      if (ids.isEmpty()) {
        return retried;
      }
      for (DeadRetry answer : broker.retryDead(keys, ids)) {
        if (answer == DeadRetry.RETRIED) {
          retried++;
        } else if (answer == DeadRetry.UNREADABLE) {
          skipped++;
        }
      }
    }
  }

  /**
   * Removes dead jobs and their records: those dead-lettered at least {@code olderThanOrNull}
   * ago by Redis's clock, or all of them when null. Returns how many went.
   */
  int purgeDead(Duration olderThanOrNull) {
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
      int n = broker.purgeDead(keys, age, Admin.BATCH);
      purged += n;
      if (n < Admin.BATCH) {
        return purged;
      }
    }
  }
}
