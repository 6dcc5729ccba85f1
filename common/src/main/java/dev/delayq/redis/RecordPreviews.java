package dev.delayq.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import redis.clients.jedis.UnifiedJedis;

/**
 * Reads what a list of jobs shows of each (type, attempts, due time, last error and a preview of
 * the payload with the payload's full size) through previewRecords.lua, which cuts each payload in
 * Redis: a page of jobs costs its reader the previews, never the whole records, however large the
 * payloads. On a sharded queue each id is read in its shard.
 */
public final class RecordPreviews {
  /** Bytes of a payload a list shows by default. */
  public static final int DEFAULT_PREVIEW_BYTES = 2_000;

  /** Bytes of a job's type and last error a list shows. */
  public static final int TEXT_BYTES = 500;

  /**
   * Bytes of records one script call reads at most (it stops after the record that reaches it):
   * each record is copied whole into the script to be cut, so this bounds how long one call blocks
   * Redis (a few ms for 8 MB), whatever the page and its payloads.
   */
  static final int BYTES_A_CALL = 8 * 1024 * 1024;

  /** Ids one script call is given at most. */
  private static final int IDS_A_CALL = 200;

  private static final int VALUES_PER_ID = 8;

  private final Scripts scripts;
  private final Keys keys;
  private final int previewBytes;

  /** How a job's record was found. */
  public enum Shape { OK, MISSING, MALFORMED }

  /**
   * One job as a list shows it. {@code payload} is the payload's text cut to the preview (of a
   * malformed record: the record's own text), {@code payloadBytes} the size of the whole.
   */
  public record Preview(String id, Shape shape, String type, int attempt, int maxAttempts, long dueAt,
      String lastError, String payload, long payloadBytes) {
    /** Whether {@code payload} is only the start of the payload. */
    public boolean cut() {
      // a preview is at most a few KB, decoded from Redis: no lone surrogate, encoding it is cheap
      return payload != null && payloadBytes > payload.getBytes(StandardCharsets.UTF_8).length;
    }
  }

  public RecordPreviews(UnifiedJedis redis, Keys keys, int previewBytes) {
    if (previewBytes < 1) {
      throw new IllegalArgumentException("previewBytes must be at least 1, got " + previewBytes);
    }
    this.scripts = new Scripts(redis);
    this.keys = keys;
    this.previewBytes = previewBytes;
  }

  /** The previews of {@code ids}, in order: one script call per shard they live in. */
  public List<Preview> of(List<String> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    if (keys.shards() == 1) {
      return read(keys, ids);
    }
    Map<Integer, List<Integer>> byShard = new TreeMap<>();
    for (int i = 0; i < ids.size(); i++) {
      byShard.computeIfAbsent(keys.shardIndexOf(ids.get(i)), k -> new ArrayList<>()).add(i);
    }
    List<Preview> out = new ArrayList<>(Collections.nCopies(ids.size(), (Preview) null));
    byShard.forEach((shard, at) -> {
      List<Preview> got = read(keys.shard(shard), at.stream().map(ids::get).toList());
      for (int k = 0; k < at.size(); k++) {
        out.set(at.get(k), got.get(k));
      }
    });
    return out;
  }

  /** The previews of ids of one shard, in as many calls as their records' sizes take. */
  private List<Preview> read(Keys shard, List<String> ids) {
    List<Preview> out = new ArrayList<>(ids.size());
    while (out.size() < ids.size()) {
      List<String> rest = ids.subList(out.size(), Math.min(ids.size(), out.size() + IDS_A_CALL));
      List<String> args = new ArrayList<>(rest.size() + 3);
      args.add(Integer.toString(previewBytes));
      args.add(Integer.toString(TEXT_BYTES));
      args.add(Integer.toString(BYTES_A_CALL));
      args.addAll(rest);
      List<?> flat = (List<?>) scripts.eval(Script.PREVIEW_RECORDS, List.of(shard.jobs()), args);
      out.addAll(previews(rest, flat));
    }
    return out;
  }

  /** A call's reply: 8 values for each of the first ids it read. */
  private static List<Preview> previews(List<String> ids, List<?> flat) {
    int n = flat.size() / VALUES_PER_ID;
    if (n == 0) {
      throw new IllegalStateException("previewRecords.lua read no record of " + ids.size());
    }
    List<Preview> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int at = i * VALUES_PER_ID;
      out.add(new Preview(ids.get(i), Shape.valueOf(((String) flat.get(at)).toUpperCase(java.util.Locale.ROOT)),
          (String) flat.get(at + 1), (int) (long) (Long) flat.get(at + 2), (int) (long) (Long) flat.get(at + 3),
          (Long) flat.get(at + 4), (String) flat.get(at + 5), (String) flat.get(at + 6), (Long) flat.get(at + 7)));
    }
    return out;
  }
}
