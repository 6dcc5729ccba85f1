package dev.delayq.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;

/**
 * The consistency check ({@code delayq check}, recover's orphan pass, the tests): the invariant
 * "every job is in exactly one place, with its record", where a type's held list and its set of
 * jobs waiting for a handler count as places, like ready, and so does {@code waiting}, where a
 * job waits for other jobs ({@link WorkflowCheck} checks the workflows' own sets). The invariant
 * holds per shard (an id lives only in its own shard), so the check is the union of the shards'
 * checks. The keys it walks are found by the {@link Inspector}.
 *
 * <p>Its memory does not hold the queue: a look keeps an 8-byte hash of each id it walks, in
 * primitive arrays ({@link HashedLook}), about 16 bytes per pending job, and what the hashes
 * disagree on are candidates; only the candidates that persist over three looks are walked once
 * more by id and judged ({@link CandidateCheck}).
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
   * it reads each one's record to tell a misfiled id, some 5 µs an id among 10 million jobs, so a
   * step stays near a millisecond.
   */
  static final int WHEEL_SCAN_IDS = 64;

  private final UnifiedJedis redis;
  private final Keys keys;
  private final WorkflowCheck workflows;
  private final ShardWalk walk;

  public InvariantCheck(UnifiedJedis redis, Keys keys) {
    this.redis = redis;
    this.keys = keys;
    this.workflows = new WorkflowCheck(redis);
    this.walk = new ShardWalk(redis, new Scripts(redis), new Inspector(redis, keys), workflows);
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
   * Checks the invariant over the whole queue, in bounded chunks (see {@link ShardWalk}). An
   * in-flight list holds deliveries ({@code <token>|<id>}, or a bare id BLMOVE left); each counts as
   * a place of its id. A breach must show in three looks taken a moment apart to be reported, so
   * jobs moving under a live system are not mistaken for one: the chunks of a look are not one
   * snapshot, and a job moving between two chunks shows in that look only. Each look compares the
   * ids' hashes; the candidates that all three agree on (by hash and kind) are walked a fourth time
   * by id, and only what that walk confirms is reported.
   */
  public List<Breach> breaches() {
    Look persistent = look();
    for (int round = 1; round < 3 && !persistent.isEmpty(); round++) {
      sleepQuietly(50);
      persistent = persistent.retain(look());
    }
    List<Breach> out = new ArrayList<>(persistent.direct().values());
    if (persistent.candidates().size() > 0) {
      out.addAll(confirm(persistent.candidates()));
    }
    return out;
  }

  /**
   * What one look found: candidate breaches by hash and kind (sorted, see {@link HashedLook#key})
   * and the breaches that come with their ids (id/kind -> breach).
   */
  private record Look(IdHashes candidates, Map<String, Breach> direct) {
    boolean isEmpty() {
      return candidates.size() == 0 && direct.isEmpty();
    }

    Look retain(Look next) {
      direct.keySet().retainAll(next.direct.keySet());
      return new Look(candidates.retainAll(next.candidates), direct);
    }
  }

  private Look look() {
    IdHashes candidates = new IdHashes(16);
    Map<String, Breach> direct = new LinkedHashMap<>();
    for (Keys shard : keys.allShards()) {
      List<KeyTypes.Wrong> wrong = KeyTypes.wrong(redis, shard);
      if (!wrong.isEmpty()) {
        // its structures cannot be read as the layout says
        wrong.forEach(w -> direct.put(w.key() + "/" + Breach.Kind.WRONG_TYPE,
            new Breach(w.key(), Breach.Kind.WRONG_TYPE, List.of(w.holds(), w.expected()))));
        continue;
      }
      HashedLook.look(redis, shard, shardName(shard), walk, workflows, candidates, direct);
    }
    return new Look(candidates.sort(true), direct);
  }

  /** The persistent candidates, walked once more by id: the breaches among them, of their kind. */
  private List<Breach> confirm(IdHashes candidates) {
    IdHashes hashes = new IdHashes(candidates.size());
    for (int i = 0; i < candidates.size(); i++) {
      hashes.addHash(HashedLook.key(candidates.get(i), 0));
    }
    hashes.sort(true);
    List<Breach> out = new ArrayList<>();
    for (Keys shard : keys.allShards()) {
      if (!KeyTypes.wrong(redis, shard).isEmpty()) {
        continue;
      }
      CandidateCheck check = new CandidateCheck(hashes, shardName(shard));
      walk.walk(shard, shardName(shard), check);
      for (Breach b : check.breaches()) {
        if (candidates.contains(HashedLook.key(IdHashes.of(b.id()), HashedLook.kindOf(b.kind())))) {
          out.add(b);
        }
      }
    }
    return out;
  }

  private String shardName(Keys shard) {
    return keys.shards() == 1 ? "" : " of shard " + shard.shard();
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
