package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * Pages through the jobs that have not started, for {@code delayq jobs} and the dashboard's job
 * browser: delayed jobs by due time within a window, ready jobs in the order workers take them.
 * Every page is bounded: one ZRANGEBYSCORE with LIMIT (or one LRANGE) of a page of ids (at most
 * {@value #MOST_LOOKED_AT} when filtered by type or id prefix) and HMGETs of their records a page
 * at a time, never a read of the whole queue, so it stays quick with millions of jobs. (A deep
 * offset costs what ZRANGEBYSCORE's LIMIT offset costs: it walks the ids before it.) Filters by type and id prefix apply to the ids looked
 * at; a page that looked at its most without filling says where to go on ({@code nextOffset}).
 */
public final class JobBrowser {
  /** Most ids one page reads from Redis, matching or not. */
  public static final int MOST_LOOKED_AT = 2_000;

  private final UnifiedJedis redis;
  private final Keys keys;

  public JobBrowser(UnifiedJedis redis, Keys keys) {
    this.redis = redis;
    this.keys = keys;
  }

  /** Which jobs to list. Null type/idPrefix match all; offset counts ids looked at before. */
  public record Query(String type, String idPrefix, int limit, long offset) {
    public Query {
      if (limit < 1 || limit > 1000) {
        throw new IllegalArgumentException("limit must be from 1 to 1000, got " + limit);
      }
      if (offset < 0) {
        throw new IllegalArgumentException("offset must not be negative, got " + offset);
      }
      type = type == null || type.isBlank() ? null : type;
      idPrefix = idPrefix == null || idPrefix.isEmpty() ? null : idPrefix;
    }
  }

  /**
   * One listed job; {@code type} "?" and {@code attempt} 0 when its record cannot be read or is
   * missing (see {@code delayq check}).
   */
  public record Row(String id, long dueAt, String type, int attempt, int maxAttempts, String lastError,
      String payloadJson) {}

  /** A page: the rows, and the offset to ask for next, or -1 when the window holds no more. */
  public record Page(List<Row> rows, long nextOffset) {}

  /** Delayed jobs due in [fromMs, toMs] (epoch ms), earliest first. */
  public Page delayed(long fromMs, long toMs, Query q) {
    requireOneShard();
    List<Tuple> ids = redis.zrangeByScoreWithScores(keys.delayed(), fromMs, toMs, (int) q.offset(), lookAt(q));
    List<String> idList = new ArrayList<>(ids.size());
    List<Long> due = new ArrayList<>(ids.size());
    for (Tuple t : ids) {
      idList.add(t.getElement());
      due.add((long) t.getScore());
    }
    return page(idList, due, q);
  }

  /** Ready jobs, the one workers take next first. */
  public Page ready(Query q) {
    requireOneShard();
    // consumers take from the right end: read from it, newest index first
    long end = -1 - q.offset();
    List<String> raw = redis.lrange(keys.ready(), end - lookAt(q) + 1, end);
    List<String> idList = new ArrayList<>(raw.size());
    for (int i = raw.size() - 1; i >= 0; i--) {
      idList.add(raw.get(i));
    }
    return page(idList, null, q);
  }

  /** Ids to read for one page: the page itself, or the most when a filter may drop some. */
  private static int lookAt(Query q) {
    return q.type() == null && q.idPrefix() == null ? q.limit() : MOST_LOOKED_AT;
  }

  private Page page(List<String> ids, List<Long> due, Query q) {
    List<Row> rows = new ArrayList<>();
    if (ids.isEmpty()) {
      return new Page(rows, -1);
    }
    List<String> candidates = new ArrayList<>();
    List<Integer> at = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      if (q.idPrefix() == null || ids.get(i).startsWith(q.idPrefix())) {
        candidates.add(ids.get(i));
        at.add(i);
      }
    }
    int lookedAt = ids.size();
    // records a page at a time, or 500 when a type filter may drop most of them (fewer round trips)
    int step = q.type() == null ? q.limit() : Math.max(q.limit(), 500);
    for (int from = 0; from < candidates.size() && rows.size() < q.limit(); from += step) {
      List<String> chunk = candidates.subList(from, Math.min(candidates.size(), from + step));
      List<String> records = redis.hmget(keys.jobs(), chunk.toArray(String[]::new));
      for (int k = 0; k < chunk.size(); k++) {
        Row row = row(chunk.get(k), due == null ? -1 : due.get(at.get(from + k)), records.get(k));
        if (q.type() == null || q.type().equals(row.type())) {
          rows.add(row);
          if (rows.size() == q.limit()) {
            lookedAt = at.get(from + k) + 1;
            break;
          }
        }
      }
    }
    boolean more = lookedAt < ids.size() || ids.size() == lookAt(q);
    return new Page(rows, more ? q.offset() + lookedAt : -1);
  }

  private static Row row(String id, long dueAt, String raw) {
    if (raw == null) {
      return new Row(id, dueAt, "?", 0, 0, "no record in jobs", null);
    }
    try {
      JobRecord r = JobRecord.parse(id, raw);
      return new Row(id, dueAt < 0 ? r.dueAt() : dueAt, r.type(), r.attempt(), r.maxAttempts(), r.lastError(),
          r.payloadJson());
    } catch (JobRecord.MalformedRecordException e) {
      return new Row(id, dueAt, "?", 0, 0, e.getMessage(), raw);
    }
  }

  /** A page is one range of one shard's delayed set or ready list; merging K shards' pages is not built yet. */
  private void requireOneShard() {
    if (keys.shards() > 1) {
      throw new IllegalStateException("listing jobs is not supported on a sharded queue yet (queue.shards is "
          + keys.shards() + "); inspect ID still finds any job");
    }
  }
}
