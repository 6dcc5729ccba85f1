package dev.delayq.redis;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import redis.clients.jedis.UnifiedJedis;

/**
 * One walk of a shard for the {@link InvariantCheck}: every id of every place, then the ids of
 * jobs, of ended and of its expiry index, each handed to a {@link Sink} as it is read, so the
 * walk itself holds one chunk at a time. Each command reads a bounded chunk: {@value
 * InvariantCheck#CHUNK} ids of a list or ZSET by range, {@value InvariantCheck#WHEEL_SCAN_IDS}
 * of the time wheel (readDelayed.lua, which also names misfiled and out-of-range ids), a
 * {@value InvariantCheck#SCAN_COUNT}-bucket HSCAN step of a hash (scanFields.lua, without the
 * records). The chunks are not one snapshot: a job moving meanwhile may be walked twice or not at
 * all, which the check's looks tell from a breach.
 */
final class ShardWalk {
  /** What a walk hands out, in this order: places, then records, ended, expiring. */
  interface Sink {
    /** The id is in {@code place} (a name an operator reads: "delayed", "ready", "inflight:c1"...). */
    void place(String id, String place);

    /** A delayed id in a bucket its record's due time does not name. */
    void misfiled(String id, String place);

    /** A delayed id whose due time (as Redis wrote it) is out of range. */
    void outOfRange(String id, String due);

    /** The id has a record in jobs. */
    void record(String id);

    /** The id is kept as ended (id retention). */
    void ended(String id);

    /** The id is in ended's expiry index. */
    void expiring(String id);
  }

  private final UnifiedJedis redis;
  private final Scripts scripts;
  private final Inspector inspector;
  private final WorkflowCheck workflows;

  ShardWalk(UnifiedJedis redis, Scripts scripts, Inspector inspector, WorkflowCheck workflows) {
    this.redis = redis;
    this.scripts = scripts;
    this.inspector = inspector;
    this.workflows = workflows;
  }

  /** Walks one shard; {@code shardName} is appended to each place's name ("" for a queue of one shard). */
  void walk(Keys keys, String shardName, Sink sink) {
    String delayedPlace = "delayed" + shardName;
    ranges(id -> sink.place(id, delayedPlace), from -> redis.zrange(keys.delayed(), from, from + InvariantCheck.CHUNK - 1));
    DelayedReads delayed = new DelayedReads(scripts);
    String after = "";
    do {
      DelayedReads.Piece piece = delayed.scan(keys, after, InvariantCheck.WHEEL_SCAN_IDS);
      piece.ids().forEach(id -> sink.place(id, delayedPlace));
      piece.misfiled().forEach(id -> sink.misfiled(id, delayedPlace));
      piece.outOfRange().forEach(sink::outOfRange);
      after = piece.next();
    } while (!after.isEmpty());
    String readyPlace = "ready" + shardName;
    ranges(id -> sink.place(id, readyPlace), from -> redis.lrange(keys.ready(), from, from + InvariantCheck.CHUNK - 1));
    String deadPlace = "dead" + shardName;
    ranges(id -> sink.place(id, deadPlace), from -> redis.zrange(keys.dead(), from, from + InvariantCheck.CHUNK - 1));
    for (String list : inspector.inFlightKeys(keys)) {
      String place = list.substring(list.lastIndexOf("}:") + 2) + shardName;
      ranges(id -> sink.place(id, place),
          from -> redis.lrange(list, from, from + InvariantCheck.CHUNK - 1).stream().map(Delivery::idOf).toList());
    }
    for (String list : inspector.heldKeys(keys)) {
      String place = "held:" + keys.typeOfHeld(list) + shardName;
      ranges(id -> sink.place(id, place), from -> redis.lrange(list, from, from + InvariantCheck.CHUNK - 1));
    }
    for (String set : inspector.noHandlerKeys(keys)) {
      String place = "nohandler:" + keys.typeOfNoHandler(set) + shardName;
      ranges(id -> sink.place(id, place), from -> redis.zrange(set, from, from + InvariantCheck.CHUNK - 1));
    }
    String waitingPlace = "waiting" + shardName;
    workflows.eachWaiting(keys, (id, policy) -> sink.place(id, waitingPlace));
    fields(keys.jobs(), sink::record);
    fields(keys.ended(), sink::ended);
    ranges(sink::expiring, from -> redis.zrange(keys.endedExpiry(), from, from + InvariantCheck.CHUNK - 1));
  }

  private static void ranges(Consumer<String> each, LongFunction<List<String>> range) {
    for (long from = 0; ; from += InvariantCheck.CHUNK) {
      List<String> page = range.apply(from);
      page.forEach(each);
      if (page.size() < InvariantCheck.CHUNK) {
        return;
      }
    }
  }

  /** The fields of a hash, a bounded HSCAN step per call, without their values (a field may come twice). */
  private void fields(String hash, Consumer<String> each) {
    String cursor = "0";
    do {
      List<?> r = (List<?>) scripts.eval(Script.SCAN_FIELDS, List.of(hash),
          List.of(cursor, Integer.toString(InvariantCheck.SCAN_COUNT)));
      cursor = (String) r.get(0);
      for (int i = 1; i < r.size(); i++) {
        each.accept((String) r.get(i));
      }
    } while (!cursor.equals("0"));
  }
}
