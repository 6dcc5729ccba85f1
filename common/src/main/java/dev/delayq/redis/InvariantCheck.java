package dev.delayq.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;
import redis.clients.jedis.UnifiedJedis;

/**
 * The consistency check ({@code delayq check}, recover's orphan pass, the tests): the invariant
 * "every job is in exactly one place, with its record", where a type's held list and its set of
 * jobs waiting for a handler count as places, like ready, and so does {@code waiting}, where a
 * job waits for other jobs ({@link WorkflowCheck} checks the workflows' own sets). The invariant
 * holds per shard (an id lives only in its own shard), so the check is the union of the shards'
 * checks. The keys it walks are found by the {@link Inspector}.
 */
public final class InvariantCheck {
  /** Ids per command of a check: each stays well under a millisecond of Redis time. */
  static final int CHUNK = 1000;
  /**
   * Buckets one HSCAN step of a check visits: a step also walks the empty buckets and copies
   * each record into the script, so it is kept ten times smaller than a range read.
   */
  static final int SCAN_COUNT = 100;
  /**
   * Ids of the time wheel one readDelayed.lua scan step reads (whole buckets, so up to 127 more):
   * it reads each one's record to tell a misfiled id, so it is kept a quarter of a range read.
   */
  static final int WHEEL_SCAN_IDS = 256;

  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;
  private final Inspector inspector;
  private final WorkflowCheck workflows;

  public InvariantCheck(UnifiedJedis redis, Keys keys) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = new Scripts(redis);
    this.inspector = new Inspector(redis, keys);
    this.workflows = new WorkflowCheck(redis);
  }

  /** One breach of the invariant "every job is in exactly one place, with its record". */
  public record Breach(String id, Kind kind, List<String> places) {
    public enum Kind {
      /** A record in jobs whose id is in no structure: a job no one will run (requeueOrphan.lua gives it back). */
      ORPHAN_RECORD,
      /** An id in a structure with no record in jobs. */
      MISSING_RECORD,
      /** An id in two structures, or twice in one. */
      SEVERAL_PLACES,
      /**
       * A kept id of an ended job with a record in jobs, or in only one of ended and its expiry
       * index (id retention).
       */
      ENDED_MISMATCH,
      /**
       * A delayed id in a bucket of the time wheel that its record's due time does not name:
       * cancel, inspect and changes by id would not find it there (docs/redis-layout.md).
       */
      MISFILED,
      /**
       * A key of the queue that holds another Redis type than the layout's ({@code id} is the key,
       * {@code places} what it holds and what it should): nothing moves through it, and the rest
       * of the shard is not checked until it is deleted or renamed.
       */
      WRONG_TYPE,
      /**
       * A delayed id whose due time (places: the due time) is outside the range of due times
       * (dev.delayq.DueTime), written by an older version or by hand: the forwarder dead-letters
       * it with a reason when it reaches it.
       */
      OUT_OF_RANGE,
      /**
       * A job in waiting, with its record, that waits for nothing or whose every dependency has
       * ended ({@code places}: the first of them): no end is left to release it. delayq recover
       * releases it, or fails it when its policy says so for a dependency that did not end done.
       */
      WAITING_RELEASABLE,
      /** An id in waiting with no record in jobs: nothing could run it (delayq recover removes it). */
      WAITING_WITHOUT_RECORD,
      /**
       * A closed batch ({@code id}: the batch's) with no job pending that has not finished: its
       * callback was never enqueued (delayq recover finishes it).
       */
      BATCH_NOT_FIRED,
      /**
       * A job pending in a batch ({@code places}: the batch's id) without a record: it ended
       * without being counted, so the batch never finishes (delayq recover counts it dead).
       */
      BATCH_MEMBER_LOST
    }

    @Override
    public String toString() {
      return switch (kind) {
        case ORPHAN_RECORD -> id + ": record in jobs but the id is in no structure";
        case MISSING_RECORD -> id + ": in " + String.join(", ", places) + " without a record";
        case SEVERAL_PLACES -> id + ": in several places at once: " + String.join(", ", places);
        case ENDED_MISMATCH -> id + ": ended, but " + String.join(", ", places);
        case MISFILED -> id + ": in a bucket of the time wheel its record's due time does not name";
        case WRONG_TYPE -> "key " + id + " holds a " + places.get(0) + ", not a " + places.get(1)
            + ": no job moves through it (due jobs wait in delayed); delete or rename it";
        case OUT_OF_RANGE -> id + ": delayed with a due time out of range (" + String.join(", ", places)
            + " ms; due times run from the epoch to 9999-12-31T23:59:59.999Z): the scheduler dead-letters it";
        case WAITING_RELEASABLE -> id + ": waiting, but " + (places.isEmpty() ? "for no job"
            : "every job it waits for has ended (" + String.join(", ", places) + ")")
            + ": nothing will release it";
        case WAITING_WITHOUT_RECORD -> id + ": in waiting without a record in jobs: nothing can run it";
        case BATCH_NOT_FIRED -> "batch " + id + ": closed with no job pending, but its callback was never enqueued";
        case BATCH_MEMBER_LOST -> id + ": pending in batch " + places.get(0)
            + " without a record: it ended uncounted, so the batch never finishes";
      };
    }
  }

  /**
   * Checks the invariant over the whole queue, in bounded chunks (see {@link #checkOnce}). An in-flight list holds deliveries
   * ({@code <token>|<id>}, or a bare id BLMOVE left); each counts as a place of its id. A breach
   * must show in three snapshots taken a moment apart to be reported, so jobs moving under a live
   * system are not mistaken for one.
   */
  public List<Breach> breaches() {
    Map<String, Breach> persistent = null;
    for (int round = 0; round < 3; round++) {
      Map<String, Breach> found = new LinkedHashMap<>();
      for (Breach b : checkOnce()) {
        found.put(b.id() + "/" + b.kind(), b);
      }
      if (persistent == null) {
        persistent = found;
      } else {
        persistent.keySet().retainAll(found.keySet());
      }
      if (persistent.isEmpty()) {
        break;
      }
      sleepQuietly(50);
    }
    return new ArrayList<>(persistent.values());
  }

  /**
   * One look, in bounded chunks ({@value #CHUNK} ids per command), so a check of a million jobs
   * never holds Redis up for long: each structure is read in ranges, and the ids of jobs and ended
   * through HSCAN (scanFields.lua, without the records). The chunks are not one snapshot, so a job
   * moving meanwhile may look like a breach in one look; {@link #breaches} reports only what three
   * looks agree on.
   */
  List<Breach> checkOnce() {
    List<Breach> all = new ArrayList<>();
    for (Keys shard : keys.allShards()) {
      all.addAll(checkOnce(shard));
    }
    return all;
  }

  /** One look at one shard: the invariant holds per shard, an id living only in its own. */
  private List<Breach> checkOnce(Keys keys) {
    List<Breach> wrongTypes = KeyTypes.wrong(redis, keys).stream()
        .map(w -> new Breach(w.key(), Breach.Kind.WRONG_TYPE, List.of(w.holds(), w.expected()))).toList();
    if (!wrongTypes.isEmpty()) {
      return wrongTypes; // its structures cannot be read as the layout says
    }
    String shardName = this.keys.shards() == 1 ? "" : " of shard " + keys.shard();
    Map<String, List<String>> places = new HashMap<>();
    noteRanges(places, "delayed" + shardName, from -> redis.zrange(keys.delayed(), from, from + CHUNK - 1));
    DelayedReads delayed = new DelayedReads(scripts);
    List<String> misfiled = new ArrayList<>();
    Map<String, String> outOfRange = new LinkedHashMap<>();
    String after = "";
    do {
      DelayedReads.Piece piece = delayed.scan(keys, after, WHEEL_SCAN_IDS);
      note(places, "delayed" + shardName, piece.ids());
      misfiled.addAll(piece.misfiled());
      outOfRange.putAll(piece.outOfRange());
      after = piece.next();
    } while (!after.isEmpty());
    noteRanges(places, "ready" + shardName, from -> redis.lrange(keys.ready(), from, from + CHUNK - 1));
    noteRanges(places, "dead" + shardName, from -> redis.zrange(keys.dead(), from, from + CHUNK - 1));
    for (String list : inspector.inFlightKeys(keys)) {
      noteRanges(places, list.substring(list.lastIndexOf("}:") + 2) + shardName,
          from -> redis.lrange(list, from, from + CHUNK - 1).stream().map(Delivery::idOf).toList());
    }
    for (String list : inspector.heldKeys(keys)) {
      noteRanges(places, "held:" + keys.typeOfHeld(list) + shardName, from -> redis.lrange(list, from, from + CHUNK - 1));
    }
    for (String set : inspector.noHandlerKeys(keys)) {
      noteRanges(places, "nohandler:" + keys.typeOfNoHandler(set) + shardName,
          from -> redis.zrange(set, from, from + CHUNK - 1));
    }
    Map<String, String> waiting = workflows.waiting(keys);
    note(places, "waiting" + shardName, waiting.keySet());
    Set<String> records = fields(keys.jobs());
    Set<String> ended = fields(keys.ended());
    Set<String> expiring = new HashSet<>();
    for (long from = 0; ; from += CHUNK) {
      List<String> page = redis.zrange(keys.endedExpiry(), from, from + CHUNK - 1);
      expiring.addAll(page);
      if (page.size() < CHUNK) {
        break;
      }
    }
    List<Breach> breaches = new ArrayList<>();
    for (String id : misfiled) {
      breaches.add(new Breach(id, Breach.Kind.MISFILED, List.of("delayed" + shardName)));
    }
    outOfRange.forEach((id, due) -> breaches.add(new Breach(id, Breach.Kind.OUT_OF_RANGE, List.of(due))));
    for (String id : records) {
      if (!places.containsKey(id)) {
        breaches.add(new Breach(id, Breach.Kind.ORPHAN_RECORD, List.of()));
      }
    }
    places.forEach((id, where) -> {
      if (!records.contains(id)) {
        // the waiting entry is a breach of its own, repaired apart from the other places
        List<String> others = where;
        if (waiting.containsKey(id)) {
          breaches.add(new Breach(id, Breach.Kind.WAITING_WITHOUT_RECORD, List.of("waiting" + shardName)));
          others = where.stream().filter(p -> !p.equals("waiting" + shardName)).toList();
        }
        if (!others.isEmpty()) {
          breaches.add(new Breach(id, Breach.Kind.MISSING_RECORD, others));
        }
      } else if (where.size() > 1) {
        breaches.add(new Breach(id, Breach.Kind.SEVERAL_PLACES, where));
      }
    });
    for (String id : ended) {
      if (records.contains(id)) {
        breaches.add(new Breach(id, Breach.Kind.ENDED_MISMATCH, List.of("it has a record in jobs")));
      }
      if (!expiring.remove(id)) {
        breaches.add(new Breach(id, Breach.Kind.ENDED_MISMATCH, List.of("not in ended:expiry")));
      }
    }
    for (String id : expiring) {
      breaches.add(new Breach(id, Breach.Kind.ENDED_MISMATCH, List.of("in ended:expiry only")));
    }
    // read after the records: a job or batch that moved since shows in one look only
    breaches.addAll(workflows.releasable(keys, waiting, records, places));
    breaches.addAll(workflows.batches(keys, records));
    return breaches;
  }

  private static void noteRanges(Map<String, List<String>> places, String place, LongFunction<List<String>> range) {
    for (long from = 0; ; from += CHUNK) {
      List<String> page = range.apply(from);
      note(places, place, page);
      if (page.size() < CHUNK) {
        return;
      }
    }
  }

  /** The fields of a hash, a bounded HSCAN step per call, without their values. */
  private Set<String> fields(String hash) {
    Set<String> out = new HashSet<>();
    String cursor = "0";
    do {
      List<?> r = (List<?>) scripts.eval(Script.SCAN_FIELDS, List.of(hash), List.of(cursor, Integer.toString(SCAN_COUNT)));
      cursor = (String) r.get(0);
      for (int i = 1; i < r.size(); i++) {
        out.add((String) r.get(i));
      }
    } while (!cursor.equals("0"));
    return out;
  }

  private static void note(Map<String, List<String>> places, String place, Collection<String> ids) {
    for (String id : ids) {
      places.computeIfAbsent(id, k -> new ArrayList<>(1)).add(place);
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
