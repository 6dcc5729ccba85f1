package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * Pages through the jobs that have not started, for {@code delayq jobs} and the dashboard's job
 * browser: delayed jobs by due time within a window, ready jobs in the order workers take them.
 * Every page is bounded: one ZRANGEBYSCORE with LIMIT (or one LRANGE) of at most
 * {@value #MOST_LOOKED_AT} ids and one HMGET of their records, never a read of the whole queue,
 * so it stays quick with millions of jobs. Filters by type and id prefix apply to the ids looked
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
    List<Tuple> ids = redis.zrangeByScoreWithScores(keys.delayed(), fromMs, toMs, (int) q.offset(), MOST_LOOKED_AT);
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
    // consumers take from the right end: read from it, newest index first
    long end = -1 - q.offset();
    List<String> raw = redis.lrange(keys.ready(), end - MOST_LOOKED_AT + 1, end);
    List<String> idList = new ArrayList<>(raw.size());
    for (int i = raw.size() - 1; i >= 0; i--) {
      idList.add(raw.get(i));
    }
    return page(idList, null, q);
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
    List<String> records = candidates.isEmpty() ? List.of()
        : redis.hmget(keys.jobs(), candidates.toArray(String[]::new));
    int lookedAt = ids.size();
    for (int k = 0; k < candidates.size(); k++) {
      Row row = row(candidates.get(k), due == null ? -1 : due.get(at.get(k)), records.get(k));
      if (q.type() == null || q.type().equals(row.type())) {
        rows.add(row);
        if (rows.size() == q.limit()) {
          lookedAt = at.get(k) + 1;
          break;
        }
      }
    }
    boolean more = lookedAt < ids.size() || ids.size() == MOST_LOOKED_AT;
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
}
