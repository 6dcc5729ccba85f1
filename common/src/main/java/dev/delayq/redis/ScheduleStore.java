package dev.delayq.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * The recurring schedules as Redis keeps them: their definitions (a HASH), their next ticks (a
 * ZSET by tick time) and their latest created ticks (a HASH), read directly and changed only by
 * tickSchedule.lua and saveSchedule.lua.
 */
public final class ScheduleStore {
  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;

  ScheduleStore(UnifiedJedis redis, Keys keys, Scripts scripts) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = scripts;
  }

  /** Every schedule, in id order (few: one hash read and one ZSET read). */
  public List<StoredSchedule> schedules() {
    Map<String, String> defs = redis.hgetAll(keys.schedules());
    Map<String, String> last = redis.hgetAll(keys.scheduleLast());
    Map<String, Long> next = new HashMap<>();
    for (Tuple t : redis.zrangeWithScores(keys.scheduleNext(), 0, -1)) {
      next.put(t.getElement(), (long) t.getScore());
    }
    List<StoredSchedule> out = new ArrayList<>();
    for (String id : new TreeSet<>(defs.keySet())) {
      out.add(new StoredSchedule(id, defs.get(id), next.getOrDefault(id, -1L),
          tickOrNone(last.get(id))));
    }
    return out;
  }

  /** One schedule as stored, or empty. */
  public Optional<StoredSchedule> schedule(String id) {
    String def = redis.hget(keys.schedules(), id);
    if (def == null) {
      return Optional.empty();
    }
    Double next = redis.zscore(keys.scheduleNext(), id);
    String last = redis.hget(keys.scheduleLast(), id);
    return Optional.of(new StoredSchedule(id, def, next == null ? -1 : next.longValue(),
        tickOrNone(last)));
  }

  /**
   * A latest created tick as stored, -1 when none; a value no script writes (planted by another
   * client) counts as none rather than failing every read of the schedules.
   */
  private static long tickOrNone(String stored) {
    if (stored == null) {
      return -1;
    }
    try {
      return Long.parseLong(stored);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Schedules whose next tick is at or before {@code untilMs}, earliest first, at most {@code limit}. */
  public List<Tuple> schedulesDueBy(long untilMs, int limit) {
    return redis.zrangeByScoreWithScores(keys.scheduleNext(), "-inf", Long.toString(untilMs), 0, limit);
  }

  /** The earliest next tick of any schedule, or empty when none is active. */
  public OptionalLong earliestScheduleTick() {
    List<Tuple> first = redis.zrangeWithScores(keys.scheduleNext(), 0, 0);
    return first.isEmpty() ? OptionalLong.empty() : OptionalLong.of((long) first.get(0).getScore());
  }

  /**
   * One tick of a schedule, in one script (tickSchedule.lua): creates the job of {@code tickMs}
   * (or none when negative), moves the schedule's next tick to {@code newNextMs} (none when
   * negative), only while the schedule is still as the caller read it.
   */
  public Ticked tickSchedule(StoredSchedule read, long tickMs, String jobId, String recordHead, String payloadJson,
      long newNextMs) {
    List<?> r = (List<?>) scripts.eval(Script.TICK_SCHEDULE,
        List.of(keys.schedules(), keys.scheduleNext(), keys.scheduleLast(), keys.jobs(), keys.delayed(),
            keys.ready(), keys.wake(), keys.stats()),
        List.of(read.id(), Long.toString(read.nextTick()), read.definition(), tickMs < 0 ? "" : Long.toString(tickMs),
            jobId, recordHead, payloadJson, newNextMs < 0 ? "" : Long.toString(newNextMs)));
    return new Ticked(((Long) r.get(0)).intValue(), (Long) r.get(1));
  }

  /**
   * Stores (or, {@code definitionOrNull} null, removes) a schedule with its next tick (none when
   * negative), withdrawing the created-ahead jobs {@code withdraw}; only while its latest created
   * tick is still {@code expectedLastTick} (-1: none). Returns the number withdrawn, or -1 when a
   * tick was created meanwhile (read again and retry).
   */
  public int saveSchedule(String id, String definitionOrNull, long nextTick, long expectedLastTick,
      List<String> withdraw) {
    if (keys.shards() > 1) {
      // tickSchedule.lua writes a tick's job beside its schedule in one slot, while a sharded
      // queue places a job by its id: refused rather than a job in a shard nobody acknowledges in
      throw new IllegalStateException("recurring schedules are not supported on a sharded queue yet"
          + " (queue.shards is " + keys.shards() + "); use a queue with queue.shards: 1 for schedules");
    }
    List<String> args = new ArrayList<>(4 + withdraw.size());
    args.add(id);
    args.add(definitionOrNull == null ? "" : definitionOrNull);
    args.add(nextTick < 0 ? "" : Long.toString(nextTick));
    args.add(expectedLastTick < 0 ? "" : Long.toString(expectedLastTick));
    args.addAll(withdraw);
    List<?> r = (List<?>) scripts.eval(Script.SAVE_SCHEDULE,
        List.of(keys.schedules(), keys.scheduleNext(), keys.scheduleLast(), keys.jobs(), keys.delayed()), args);
    return (Long) r.get(0) == 1L ? ((Long) r.get(1)).intValue() : -1;
  }
}
