package dev.delayq.redis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * Pages through the jobs, for {@code delayq jobs} and the dashboard's job browser: delayed jobs by
 * due time within a window, ready jobs in the order workers take them, in-flight jobs consumer by
 * consumer.
 * Every page is bounded: one ZRANGEBYSCORE with LIMIT (or one LRANGE) of a page of ids (at most
 * {@value #MOST_LOOKED_AT} when filtered by type or id prefix) and their records' previews a page
 * at a time ({@link RecordPreviews}: each payload cut in Redis, so a page of large payloads costs
 * the previews), never a read of the whole queue, so it stays quick with millions of jobs. (A deep
 * offset costs what ZRANGEBYSCORE's LIMIT offset costs: it walks the ids before it.) Filters by type and id prefix apply to the ids looked
 * at; a page that looked at its most without filling says where to go on ({@code nextOffset}).
 * On a sharded queue a page spans the shards (see each view), its records read in their shards.
 */
public final class JobBrowser {
  /** Most ids one page reads from Redis, matching or not. */
  public static final int MOST_LOOKED_AT = 2_000;

  /** How deep a page of a sharded queue's delayed jobs may start (each shard reads that many). */
  public static final int MOST_SHARDED_OFFSET = 100_000;

  /** Consumers whose in-flight lists one round trip reads. */
  private static final int CONSUMERS_A_TRIP = 100;

  private final UnifiedJedis redis;
  private final Keys keys;
  private final DelayedReads delayed;
  private final RecordPreviews previews;

  /** Rows whose payloads are cut to {@value RecordPreviews#DEFAULT_PREVIEW_BYTES} bytes. */
  public JobBrowser(UnifiedJedis redis, Keys keys) {
    this(redis, keys, RecordPreviews.DEFAULT_PREVIEW_BYTES);
  }

  /** Rows whose payloads are cut to {@code previewBytes} bytes (in Redis). */
  public JobBrowser(UnifiedJedis redis, Keys keys, int previewBytes) {
    this.redis = redis;
    this.keys = keys;
    this.delayed = new DelayedReads(redis);
    this.previews = new RecordPreviews(redis, keys, previewBytes);
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
   * missing (see {@code delayq check}). {@code payloadJson} is the payload's start, cut to the
   * browser's preview (of an unreadable record: the record's text), and {@code payloadBytes} the
   * size of the whole. For an in-flight job, {@code consumer} holds it and
   * {@code running} says its handler has started (else it is claimed, waiting in the consumer's
   * batch); null and false for the others.
   */
  public record Row(String id, long dueAt, String type, int attempt, int maxAttempts, String lastError,
      String payloadJson, long payloadBytes, boolean payloadCut, String consumer, boolean running) {}

  /** A page: the rows, and the offset to ask for next, or -1 when the window holds no more. */
  public record Page(List<Row> rows, long nextOffset) {}

  /**
   * Delayed jobs due in [fromMs, toMs] (epoch ms), earliest first. On a sharded queue each shard
   * gives its first offset + page ids of the window and the page is cut from their merge, so a
   * deep page costs K times its depth: pages start at most {@value #MOST_SHARDED_OFFSET} in.
   */
  public Page delayed(long fromMs, long toMs, Query q) {
    List<Tuple> ids;
    if (keys.shards() == 1) {
      ids = delayed.range(keys, Long.toString(fromMs), Long.toString(toMs), q.offset(), lookAt(q));
    } else {
      if (q.offset() > MOST_SHARDED_OFFSET) {
        throw new IllegalArgumentException("offset " + q.offset() + " is too deep for a sharded queue (at most "
            + MOST_SHARDED_OFFSET + "): narrow the window instead (a later from)");
      }
      int upTo = (int) q.offset() + lookAt(q);
      List<Tuple> merged = new ArrayList<>();
      for (Keys shard : keys.allShards()) {
        merged.addAll(delayed.range(shard, Long.toString(fromMs), Long.toString(toMs), 0, upTo));
      }
      merged.sort(Comparator.comparingDouble(Tuple::getScore).thenComparing(Tuple::getElement));
      ids = merged.subList((int) Math.min(merged.size(), q.offset()), Math.min(merged.size(), upTo));
    }
    List<String> idList = new ArrayList<>(ids.size());
    List<Long> due = new ArrayList<>(ids.size());
    for (Tuple t : ids) {
      idList.add(t.getElement());
      due.add((long) t.getScore());
    }
    return page(idList, due, null, null, q);
  }

  /** Ready jobs, the one workers take next first (on a sharded queue: shard by shard). */
  public Page ready(Query q) {
    long toSkip = q.offset();
    int budget = lookAt(q);
    List<String> idList = new ArrayList<>();
    for (Keys shard : keys.allShards()) {
      long length = keys.shards() == 1 ? Long.MAX_VALUE : redis.llen(shard.ready());
      if (toSkip >= length) {
        toSkip -= length;
        continue;
      }
      // consumers take from the right end: read from it, newest index first
      long end = -1 - toSkip;
      List<String> raw = redis.lrange(shard.ready(), end - (budget - idList.size()) + 1, end);
      for (int i = raw.size() - 1; i >= 0; i--) {
        idList.add(raw.get(i));
      }
      toSkip = 0;
      if (idList.size() == budget) {
        break;
      }
    }
    return page(idList, null, null, null, q);
  }

  /**
   * In-flight jobs: claimed by a consumer, running or waiting in its batch; consumers by name,
   * each one's jobs in claim order (oldest first), a running one marked from the running hash
   * (on a sharded queue: shard by shard, each with its own consumers and running hash).
   * The consumer names are read whole (one per worker thread: the queue's consumers set, not its
   * jobs); their in-flight lists (each at most a batch) {@value #CONSUMERS_A_TRIP} to a round
   * trip, only until the page is full. The offset counts deliveries looked at, as for the other
   * views; consumers that come or go between two pages shift it.
   */
  public Page inFlight(Query q) {
    InFlightWalk walk = new InFlightWalk(q.offset(), lookAt(q));
    for (Keys shard : keys.allShards()) {
      if (!walk.shard(shard)) {
        break;
      }
    }
    return page(walk.ids, null, walk.holders, walk.running, q);
  }

  /**
   * Jobs waiting for a handler ({@link HandlerWait}): type by type (only {@code q.type()}'s when
   * given), the longest-waiting first, shard by shard; each set read in one bounded range.
   */
  public Page waitingForHandler(Query q) {
    long toSkip = q.offset();
    int budget = lookAt(q);
    List<String> idList = new ArrayList<>();
    for (Keys shard : keys.allShards()) {
      List<String> types = new ArrayList<>(redis.smembers(shard.noHandlerIndex()));
      types.sort(null);
      for (String type : types) {
        if (idList.size() == budget) {
          break;
        }
        if (q.type() != null && !q.type().equals(type)) {
          continue;
        }
        List<String> ids = redis.zrange(shard.noHandler(type), toSkip, toSkip + budget - idList.size() - 1);
        toSkip = ids.isEmpty() ? Math.max(0, toSkip - redis.zcard(shard.noHandler(type))) : 0;
        idList.addAll(ids);
      }
    }
    return page(idList, null, null, null, q);
  }

  /** Walks the in-flight lists of one shard after another, skipping and collecting deliveries. */
  private final class InFlightWalk {
    private long toSkip;
    private final int budget;
    private final List<String> ids = new ArrayList<>();
    private final List<String> holders = new ArrayList<>();
    private final List<Boolean> running = new ArrayList<>();

    InFlightWalk(long toSkip, int budget) {
      this.toSkip = toSkip;
      this.budget = budget;
    }

    /** Walks one shard's consumers; false once the page is full. */
    boolean shard(Keys shard) {
      List<String> consumers = new ArrayList<>(redis.zrange(shard.consumers(), 0, -1));
      consumers.sort(null);
      for (int from = 0; from < consumers.size(); from += CONSUMERS_A_TRIP) {
        List<String> trip = consumers.subList(from, Math.min(consumers.size(), from + CONSUMERS_A_TRIP));
        List<Response<List<String>>> lists = new ArrayList<>(trip.size());
        Response<List<String>> marks;
        try (AbstractPipeline p = Pipelines.open(redis)) {
          for (String c : trip) {
            lists.add(p.lrange(shard.inFlight(c), -MOST_LOOKED_AT, -1));
          }
          marks = p.hmget(shard.running(), trip.toArray(String[]::new));
          p.sync();
        }
        for (int i = 0; i < trip.size(); i++) {
          List<String> elements = Pipelines.reply(lists.get(i), "LRANGE of an in-flight list");
          String mark = Pipelines.reply(marks, "HMGET of the running marks").get(i);
          for (int k = elements.size() - 1; k >= 0; k--) { // claimed on the left: the oldest is on the right
            if (toSkip > 0) {
              toSkip--;
            } else if (ids.size() == budget) {
              return false;
            } else {
              ids.add(Delivery.idOf(elements.get(k)));
              holders.add(trip.get(i));
              running.add(elements.get(k).equals(mark));
            }
          }
        }
      }
      return true;
    }
  }

  /** Ids to read for one page: the page itself, or the most when a filter may drop some. */
  private static int lookAt(Query q) {
    return q.type() == null && q.idPrefix() == null ? q.limit() : MOST_LOOKED_AT;
  }

  /** The rows of ids (due times, holders and running marks where given, else null). */
  private Page page(List<String> ids, List<Long> due, List<String> holders, List<Boolean> running, Query q) {
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
      List<RecordPreviews.Preview> records = previews.of(chunk);
      for (int k = 0; k < chunk.size(); k++) {
        int i = at.get(from + k);
        Row row = row(due == null ? -1 : due.get(i), records.get(k),
            holders == null ? null : holders.get(i), running != null && running.get(i));
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

  private static Row row(long dueAt, RecordPreviews.Preview p, String consumer, boolean running) {
    return switch (p.shape()) {
      case MISSING -> new Row(p.id(), dueAt, "?", 0, 0, "no record in jobs", null, 0, false, consumer, running);
      case MALFORMED -> new Row(p.id(), dueAt, "?", 0, 0, p.lastError() != null ? p.lastError()
          : "record of " + p.id() + " is not a JSON object with a type and a payload", p.payload(), p.payloadBytes(),
          p.cut(), consumer, running);
      case OK -> new Row(p.id(), dueAt < 0 ? p.dueAt() : dueAt, p.type(), p.attempt(), p.maxAttempts(), p.lastError(),
          p.payload(), p.payloadBytes(), p.cut(), consumer, running);
    };
  }
}
