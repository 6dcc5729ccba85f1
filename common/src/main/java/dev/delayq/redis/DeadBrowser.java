package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * The dashboard's dead list: the newest dead jobs with their errors and a preview of each payload,
 * cut in Redis ({@link RecordPreviews}), so listing dead jobs with large payloads costs the reader
 * the previews, never the whole records. On a sharded queue the newest of each shard are merged.
 */
public final class DeadBrowser {
  /** Dead ids one round trip looks at when a type filter may drop most of them. */
  private static final int FILTERED_STEP = 500;

  private final UnifiedJedis redis;
  private final Keys keys;
  private final RecordPreviews previews;

  /**
   * A dead job as listed: {@code payload} cut to the preview (of an unreadable record: the text the
   * dead-letter kept of it), {@code payloadBytes} the size of the whole.
   */
  public record Row(String id, String type, long deadAt, int attempt, int maxAttempts, String lastError,
      String payload, long payloadBytes, boolean payloadCut) {}

  public DeadBrowser(UnifiedJedis redis, Keys keys, int previewBytes) {
    this.redis = redis;
    this.keys = keys;
    this.previews = new RecordPreviews(redis, keys, previewBytes);
  }

  /** Dead jobs, newest first, at most {@code limit}; only those of {@code typeOrNull} if given. */
  public List<Row> newest(String typeOrNull, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    if (keys.shards() == 1) {
      return newest(keys, typeOrNull, limit);
    }
    List<Row> all = new ArrayList<>();
    for (Keys shard : keys.allShards()) {
      all.addAll(newest(shard, typeOrNull, limit));
    }
    all.sort((a, b) -> Long.compare(b.deadAt(), a.deadAt()));
    return all.size() > limit ? new ArrayList<>(all.subList(0, limit)) : all;
  }

  private List<Row> newest(Keys shard, String typeOrNull, int limit) {
    List<Row> out = new ArrayList<>();
    int step = typeOrNull == null ? limit : Math.max(limit, FILTERED_STEP);
    for (long from = 0; out.size() < limit; from += step) {
      List<Tuple> page = redis.zrevrangeWithScores(shard.dead(), from, from + step - 1);
      if (page.isEmpty()) {
        break;
      }
      List<RecordPreviews.Preview> got = previews.of(page.stream().map(Tuple::getElement).toList());
      for (int i = 0; i < page.size() && out.size() < limit; i++) {
        Row row = row((long) page.get(i).getScore(), got.get(i));
        if (typeOrNull == null || typeOrNull.equals(row.type())) {
          out.add(row);
        }
      }
      if (page.size() < step) {
        break;
      }
    }
    return out;
  }

  private static Row row(long deadAt, RecordPreviews.Preview p) {
    return switch (p.shape()) {
      case MISSING -> new Row(p.id(), "?", deadAt, 0, 0, "no record in jobs", null, 0, false);
      case MALFORMED -> new Row(p.id(), "?", deadAt, 0, 0, p.lastError() != null ? p.lastError()
          : "record of " + p.id() + " is not a JSON object with a type and a payload", p.payload(), p.payloadBytes(),
          p.cut());
      case OK -> new Row(p.id(), p.type(), deadAt, p.attempt(), p.maxAttempts(), p.lastError(), p.payload(),
          p.payloadBytes(), p.cut());
    };
  }
}
