package dev.delayq.redis;

import dev.delayq.redis.InvariantCheck.Breach;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * One look of the {@link InvariantCheck} at one shard that holds 8 bytes per id it walks (its
 * {@link IdHashes}), not the ids: the places' hashes (one per place an id is in), the records',
 * the dead ones', ended's and its expiry index's. Sorted, they meet by merging, and what differs is
 * a candidate breach, named by its hash and kind ({@link #key}): a record in no place, a place
 * without a record, a hash in several places, an ended id with a record or in only one of ended
 * and its index. The check confirms the candidates that persist by their ids ({@link
 * CandidateCheck}). Misfiled and out-of-range ids and the workflow's breaches come with their ids
 * and are reported as they are.
 */
final class HashedLook implements ShardWalk.Sink, WorkflowCheck.Known {
  /** Kinds of candidate, in the low two bits of a key. */
  static final int ORPHAN = 0;
  static final int MISSING = 1;
  static final int SEVERAL = 2;
  static final int ENDED = 3;

  private final IdHashes places;
  private final IdHashes records;
  private final IdHashes dead;
  private final IdHashes ended;
  private final IdHashes expiring;
  private final String deadPlace;
  private final Map<String, Breach> direct;

  /** Bytes a look holds per record: the record's hash and its place's. */
  static final long BYTES_PER_JOB = 16;

  /**
   * Refuses a look whose hashes would not fit this heap with a clear error, before it allocates:
   * they must fit in the old generation beside what the JVM already holds, so at most 60 % of the
   * heap (a 128 MB heap checks about 4.8 million jobs a shard).
   */
  static void fits(long records, long maxHeapBytes) {
    long needed = (records + 1024) * BYTES_PER_JOB;
    if (needed > maxHeapBytes / 10 * 6) {
      throw new IllegalStateException(String.format("checking %,d jobs holds about %,d MB of id hashes (%d bytes a"
          + " job), more than this JVM's heap of %,d MB leaves room for: run it with -Xmx%dm or more"
          + " (bin/delayq takes JVM options from DELAYQ_CLI_OPTS)", records, needed >> 20, BYTES_PER_JOB,
          maxHeapBytes >> 20, (needed * 2 >> 20) + 64));
    }
  }

  /** Sized from the shard's depths, read at once, so that no array grows while it is walked. */
  private HashedLook(long[] depths, String shardName, Map<String, Breach> direct) {
    fits(depths[0], Runtime.getRuntime().maxMemory());
    // a job in its one place has its record: places as many as records, give or take a few moving
    this.places = new IdHashes(depths[0] + 1024);
    this.records = new IdHashes(depths[0] + 1024);
    this.dead = new IdHashes(depths[1] + 16);
    this.ended = new IdHashes(depths[2] + 16);
    this.expiring = new IdHashes(depths[3] + 16);
    this.deadPlace = "dead" + shardName;
    this.direct = direct;
  }

  /**
   * Walks one shard, adds the candidate keys it finds to {@code candidates} and the breaches that
   * come with their ids to {@code direct} (id/kind -> breach).
   */
  static void look(UnifiedJedis redis, Keys shard, String shardName, ShardWalk walk, WorkflowCheck workflows,
      IdHashes candidates, Map<String, Breach> direct) {
    HashedLook look = new HashedLook(depths(redis, shard), shardName, direct);
    walk.walk(shard, shardName, look);
    look.records.sort(true);
    look.places.sort(false);
    look.dead.sort(true);
    look.ended.sort(true);
    look.expiring.sort(true);
    look.candidates(candidates);
    // read after the records: a job or batch that moved since shows in one look only
    workflows.releasable(shard, look).forEach(look::direct);
    workflows.batches(shard, look).forEach(look::direct);
  }

  /** records, dead, ended, ended:expiry: one transaction of counts. */
  private static long[] depths(UnifiedJedis redis, Keys shard) {
    try (AbstractTransaction tx = Slots.multi(redis, shard.jobs())) {
      Response<Long> records = tx.hlen(shard.jobs());
      Response<Long> dead = tx.zcard(shard.dead());
      Response<Long> ended = tx.hlen(shard.ended());
      Response<Long> expiring = tx.zcard(shard.endedExpiry());
      tx.exec();
      return new long[] {records.get(), dead.get(), ended.get(), expiring.get()};
    }
  }

  /** A candidate's key: its hash with the kind in the low two bits. */
  static long key(long hash, int kind) {
    return (hash & ~3L) | kind;
  }

  /** The kind of candidate a breach confirms, or -1 for one that comes with its id. */
  static int kindOf(Breach.Kind kind) {
    return switch (kind) {
      case ORPHAN_RECORD -> ORPHAN;
      case MISSING_RECORD, WAITING_WITHOUT_RECORD -> MISSING;
      case SEVERAL_PLACES -> SEVERAL;
      case ENDED_MISMATCH -> ENDED;
      default -> -1;
    };
  }

  private void candidates(IdHashes out) {
    int r = 0;
    int n = places.size();
    for (int p = 0; p < n; ) {
      long h = places.get(p);
      int times = 1;
      while (p + times < n && places.get(p + times) == h) {
        times++;
      }
      while (r < records.size() && records.get(r) < h) {
        out.addHash(key(records.get(r++), ORPHAN));
      }
      boolean recorded = r < records.size() && records.get(r) == h;
      if (recorded) {
        r++;
      } else {
        out.addHash(key(h, MISSING));
      }
      if (times > 1) {
        out.addHash(key(h, SEVERAL));
      }
      p += times;
    }
    while (r < records.size()) {
      out.addHash(key(records.get(r++), ORPHAN));
    }
    for (int e = 0; e < ended.size(); e++) {
      long h = ended.get(e);
      if (records.contains(h) || !expiring.contains(h)) {
        out.addHash(key(h, ENDED));
      }
    }
    for (int x = 0; x < expiring.size(); x++) {
      if (!ended.contains(expiring.get(x))) {
        out.addHash(key(expiring.get(x), ENDED));
      }
    }
  }

  private void direct(Breach b) {
    direct.putIfAbsent(b.id() + "/" + b.kind(), b);
  }

  @Override
  public void place(String id, String place) {
    long h = IdHashes.of(id);
    places.addHash(h);
    if (place.equals(deadPlace)) {
      dead.addHash(h);
    }
  }

  @Override
  public void misfiled(String id, String place) {
    direct(new Breach(id, Breach.Kind.MISFILED, List.of(place)));
  }

  @Override
  public void outOfRange(String id, String due) {
    direct(new Breach(id, Breach.Kind.OUT_OF_RANGE, List.of(due)));
  }

  @Override
  public void record(String id) {
    records.add(id);
  }

  @Override
  public void ended(String id) {
    ended.add(id);
  }

  @Override
  public void expiring(String id) {
    expiring.add(id);
  }

  @Override
  public boolean hasRecord(String id) {
    return records.contains(id);
  }

  @Override
  public int places(String id) {
    return places.count(IdHashes.of(id));
  }

  @Override
  public boolean dead(String id) {
    return dead.contains(id);
  }
}
