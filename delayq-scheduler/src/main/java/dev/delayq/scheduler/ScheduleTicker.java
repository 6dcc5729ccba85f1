package dev.delayq.scheduler;

import dev.delayq.Schedules;
import dev.delayq.process.LogText;
import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.StoredSchedule;
import dev.delayq.redis.Ticked;
import dev.delayq.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.resps.Tuple;

/**
 * A ScheduleTicker turns the ticks of recurring schedules into jobs: {@value #LOOKAHEAD_MS} ms
 * before a tick it creates the tick's job as a delayed job due at the tick, so the forwarder fires
 * it with the precision of any delayed job. Every scheduler runs one, leader or not: the tick
 * script creates the job and moves the schedule on in one compare-and-set step, so two tickers (or
 * one that died half-way) still make exactly one job per tick. A tick found more than
 * {@value #MISSED_AFTER_MS} ms past (no scheduler ran) is missed: skipped, or run once for all
 * the missed ones, as its schedule says.
 */
final class ScheduleTicker {
  private static final Logger log = LoggerFactory.getLogger(ScheduleTicker.class);
  /**
   * How long before its tick a tick's job is created: at least {@code Schedules.KEEP_WITHIN_MS},
   * the soonest a saved schedule's first tick may be. Ticks fall on whole seconds (cron and
   * --every alike), so half a second more puts the ticker's pass between them: at 1 s ahead it
   * would create the next tick's job at the very moment the previous tick's job is forwarded and
   * started, on the same cores.
   */
  static final long LOOKAHEAD_MS = 1_500;
  static final long MISSED_AFTER_MS = 1_000;
  /** How often an idle ticker looks for schedules added or resumed since. */
  static final long POLL_MS = 250;
  private static final int PER_PASS = 100;
  private static final int MOST_MISSED_COUNTED = 100_000;

  private final RedisBroker broker;
  private final BrokenSchedules broken = new BrokenSchedules();

  ScheduleTicker(RedisBroker broker) {
    this.broker = broker;
  }

  /** Ticks on its own thread until shutdown; {@code onCannotGoOn} is told should it not go on. */
  Thread start(BooleanSupplier stopping, OutageLog outages, Consumer<Throwable> onCannotGoOn) {
    return RunUntilShutdown.of("schedule-ticker", this::pass).until(stopping)
        .riding(new RedisOutage("scheduler/schedule-ticker", outages))
        .onCannotGoOn(onCannotGoOn, Duration.ofMinutes(1)).build().start();
  }

  /**
   * One pass over the schedules whose next tick is within the lookahead; returns when to pass
   * again. A broken schedule is stepped over (its tick stays where it was), so it neither holds
   * back the others nor counts toward a full pass or the next wake-up.
   */
  long pass() {
    long now = broker.redisNowMs();
    List<Tuple> due = broker.scheduleStore().schedulesDueBy(now + LOOKAHEAD_MS, PER_PASS + broken.size());
    int ticked = 0;
    for (Tuple t : due) {
      Optional<StoredSchedule> stored = broker.scheduleStore().schedule(t.getElement());
      if (stored.isPresent() && tickOne(stored.get(), broker.redisNowMs()) != Outcome.BROKEN) {
        ticked++;
      }
    }
    long received = System.nanoTime();
    if (ticked >= PER_PASS) {
      return received;
    }
    long waitMs = POLL_MS;
    OptionalLong earliest = earliestTickOfTheOthers();
    if (earliest.isPresent()) {
      waitMs = Math.max(0, Math.min(POLL_MS, earliest.getAsLong() - LOOKAHEAD_MS - now));
    }
    return received + waitMs * 1_000_000;
  }

  /** The earliest next tick of a schedule that is not broken (a broken one's stays in the past). */
  private OptionalLong earliestTickOfTheOthers() {
    if (broken.size() == 0) {
      return broker.scheduleStore().earliestScheduleTick();
    }
    for (Tuple t : broker.scheduleStore().schedulesDueBy(Long.MAX_VALUE, broken.size() + 1)) {
      if (!broken.has(t.getElement())) {
        return OptionalLong.of((long) t.getScore());
      }
    }
    return OptionalLong.empty();
  }

  /** What a pass did with one schedule: for tests. */
  enum Outcome { CREATED, SKIPPED_MISSED, STALE, BROKEN, NONE }

  /** What one schedule's tick is to do, computed from its definition alone (no Redis). */
  private record Plan(Schedule schedule, long tick, long create, int missed, long next, String jobId,
      String recordHead) {}

  Outcome tickOne(StoredSchedule stored, long now) {
    if (broken.stillBroken(stored)) {
      return Outcome.BROKEN;
    }
    Plan p;
    try {
      p = plan(stored, now);
    } catch (RuntimeException e) {
      // whatever a definition another client wrote throws (ZoneRulesException for "Mars/Olympus",
      // a cron-utils error, an id Schedule refuses): this schedule stops, the others go on
      broken.failed(stored, e);
      return Outcome.BROKEN;
    }
    broken.computed(stored.id());
    Ticked r = broker.scheduleStore().tickSchedule(stored, p.create(), p.jobId(), p.recordHead(),
        p.schedule().payloadJson(), p.next());
    if (r.stale()) {
      return Outcome.STALE;
    }
    if (p.missed() > 0) {
      log.warn("schedule {}: {} tick(s) from {} were missed (no scheduler ran): {}", LogText.escape(stored.id()),
          p.missed(), Instant.ofEpochMilli(p.tick()), p.create() < 0 ? "skipped"
              : "one job runs now for the tick of " + Instant.ofEpochMilli(p.create()));
    }
    return p.create() < 0 ? Outcome.SKIPPED_MISSED : r.code() == 1 ? Outcome.CREATED : Outcome.NONE;
  }

  private static Plan plan(StoredSchedule stored, long now) {
    Schedule s = Schedule.fromJson(stored.definition());
    long tick = stored.nextTick();
    long create = tick;
    long next;
    int missed = 0;
    if (tick >= now - MISSED_AFTER_MS) {
      next = after(s, tick);
    } else {
      long latest = tick;
      missed = 1;
      Optional<Instant> n;
      while (missed < MOST_MISSED_COUNTED && (n = s.cadence().next(Instant.ofEpochMilli(latest))).isPresent()
          && n.get().toEpochMilli() <= now) {
        latest = n.get().toEpochMilli();
        missed++;
      }
      create = s.missed() == Schedule.Missed.RUN_ONCE ? latest : -1;
      next = after(s, Math.max(latest, now));
    }
    return new Plan(s, tick, create, missed, next, create < 0 ? "" : s.tickJobId(create),
        create < 0 ? "" : Schedules.tickRecordHead(s, create, missed));
  }

  private static long after(Schedule s, long ms) {
    return s.cadence().next(Instant.ofEpochMilli(ms)).map(Instant::toEpochMilli).orElse(-1L);
  }
}
