package dev.delayq;

import dev.delayq.redis.JobRecord;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.StoredSchedule;
import dev.delayq.schedule.Cadence;
import dev.delayq.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Recurring schedules managed by id: upsert, list, pause, resume, remove, run once now. A
 * definition lives in the queue's Redis ({@code schedules}), so it survives restarts and is the
 * same for every process; the schedulers' tickers create each tick's job, exactly one per tick
 * (see tickSchedule.lua). Changing, pausing or removing a schedule withdraws the jobs its ticks
 * created ahead that are not about to fall due. Thread-safe.
 */
public final class Schedules {
  /**
   * How soon after a save a schedule's first tick may be: the tickers create a tick's job at
   * least this long ahead (1.5 s), so a nearer tick could not fire on time. Created ticks due this
   * soon also keep the definition they were created with (the forwarder may be moving them right
   * now); those due later are withdrawn and created again from the new definition.
   */
  static final long KEEP_WITHIN_MS = 1_000;
  private static final int RETRIES = 20;

  private final RedisBroker broker;
  private final Payloads payloads;

  Schedules(RedisBroker broker, Payloads payloads) {
    this.broker = broker;
    this.payloads = payloads;
  }

  /**
   * A schedule as it stands: its definition, its next ticks (empty when paused), and the latest
   * tick whose job was created (null when none since it was last saved).
   */
  public record View(Schedule schedule, List<Instant> nextTicks, Instant lastTick) {}

  /**
   * A schedule whose stored definition cannot be read or computed (an unknown time zone, an
   * undecodable cron, an id or JSON another client wrote): it does not tick, and is shown with
   * {@code reason} beside the others instead of failing the list.
   */
  public record Broken(String id, String reason) {
    /** What went wrong, in one line: the first line of the exception's message, else its kind. */
    public static String reasonOf(RuntimeException e) {
      String message = e.getMessage();
      return message == null || message.isBlank() ? e.getClass().getSimpleName() : message.lines().findFirst().orElse("");
    }
  }

  /** Every schedule, by id: those that can be read, and apart those that cannot. */
  public record Listing(List<View> schedules, List<Broken> broken) {}

  /** How many next ticks a {@link View} shows. */
  static final int SHOWN_TICKS = 5;

  /** Creates or replaces the schedule {@code s.id()}; its type and payload are checked as at enqueue. */
  public View upsert(Schedule s) {
    DelayQueue.checkType(s.type());
    Schedule checked = new Schedule(s.id(), s.cadence(), s.type(), payloads.toJson(s.payloadJson()),
        s.maxAttempts(), s.paused(), s.missed());
    save(checked.id(), checked);
    return get(checked.id()).orElseThrow();
  }

  /** Every schedule that can be read, by id; {@link #listing()} names the broken ones too. */
  public List<View> list() {
    return listing().schedules();
  }

  /** Every schedule, by id; one that cannot be read is listed as {@link Broken}, never failing the rest. */
  public Listing listing() {
    List<View> out = new ArrayList<>();
    List<Broken> broken = new ArrayList<>();
    for (StoredSchedule stored : broker.scheduleStore().schedules()) {
      try {
        out.add(view(stored));
      } catch (RuntimeException e) {
        broken.add(new Broken(stored.id(), Broken.reasonOf(e)));
      }
    }
    return new Listing(out, broken);
  }

  public Optional<View> get(String id) {
    return broker.scheduleStore().schedule(id).map(Schedules::view);
  }

  /** Removes the schedule; false when there was none. */
  public boolean remove(String id) {
    if (broker.scheduleStore().schedule(id).isEmpty()) {
      return false;
    }
    save(id, null);
    return true;
  }

  /** Stops the schedule ticking (its definition stays); empty when there is none. */
  public Optional<View> pause(String id) {
    return setPaused(id, true);
  }

  /** Lets a paused schedule tick again, from its next tick after now; empty when there is none. */
  public Optional<View> resume(String id) {
    return setPaused(id, false);
  }

  private Optional<View> setPaused(String id, boolean paused) {
    Optional<StoredSchedule> stored = broker.scheduleStore().schedule(id);
    if (stored.isEmpty()) {
      return Optional.empty();
    }
    save(id, definitionOf(stored.get()).paused(paused));
    return get(id);
  }

  /**
   * Enqueues one job of the schedule now, outside its ticks ({@code <id>@run-<ms>}); the schedule
   * itself is not changed. Empty when there is no such schedule.
   */
  public Optional<EnqueueResult> runNow(DelayQueue queue, String id) {
    return broker.scheduleStore().schedule(id).map(stored -> {
      Schedule s = definitionOf(stored);
      return queue.delay(s.type(), s.payloadJson(), Duration.ZERO,
          JobOptions.withId(s.id() + "@run-" + broker.redisNowMs()).maxAttempts(s.maxAttempts()));
    });
  }

  /** Saves (or with null removes) a definition, retrying while a ticker creates ticks meanwhile. */
  private void save(String id, Schedule s) {
    for (int attempt = 0; attempt < RETRIES; attempt++) {
      long now = broker.redisNowMs();
      Optional<StoredSchedule> old = broker.scheduleStore().schedule(id);
      long created = old.map(StoredSchedule::lastTick).orElse(-1L);
      List<String> withdraw = List.of();
      long base = Math.max(now + KEEP_WITHIN_MS, created);
      if (created > now + KEEP_WITHIN_MS) {
        withdraw = createdAhead(old.get(), now + KEEP_WITHIN_MS, created);
        base = now + KEEP_WITHIN_MS;
      }
      long next = s == null || s.paused() ? -1
          : s.cadence().next(Instant.ofEpochMilli(base)).map(Instant::toEpochMilli).orElse(-1L);
      if (next > DueTime.LATEST_MS) {
        throw new IllegalArgumentException("schedule " + id + ": its next tick " + Instant.ofEpochMilli(next)
            + " is out of range: " + DueTime.RANGE);
      }
      if (broker.scheduleStore().saveSchedule(id, s == null ? null : s.toJson(), next, created, withdraw) >= 0) {
        return;
      }
    }
    throw new IllegalStateException("schedule " + id + " kept changing under " + RETRIES + " tries to save it");
  }

  /**
   * The ids of the ticks the stored definition created after {@code from} up to {@code created}, to
   * withdraw. A broken definition cannot say them: then none is withdrawn (they run as created),
   * and the broken schedule can still be replaced or removed.
   */
  private static List<String> createdAhead(StoredSchedule old, long from, long created) {
    List<String> ids = new ArrayList<>();
    try {
      Schedule before = Schedule.fromJson(old.definition());
      long t = from;
      while (true) {
        Optional<Instant> n = before.cadence().next(Instant.ofEpochMilli(t));
        if (n.isEmpty() || n.get().toEpochMilli() > created) {
          return ids;
        }
        t = n.get().toEpochMilli();
        ids.add(before.tickJobId(t));
      }
    } catch (RuntimeException e) {
      return List.of();
    }
  }

  /**
   * The stored definition, for a change of the schedule: a broken one (see {@link Broken}) is
   * refused with an IllegalArgumentException that names it and its reason, whatever it threw.
   */
  private static Schedule definitionOf(StoredSchedule stored) {
    try {
      return Schedule.fromJson(stored.definition());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("schedule " + stored.id() + " is broken (" + Broken.reasonOf(e)
          + "): save it again with upsert, or remove it");
    }
  }

  private static View view(StoredSchedule stored) {
    Schedule s = Schedule.fromJson(stored.definition());
    List<Instant> ticks = new ArrayList<>();
    if (stored.nextTick() >= 0) {
      Instant t = Instant.ofEpochMilli(stored.nextTick());
      ticks.add(t);
      while (ticks.size() < SHOWN_TICKS) {
        Optional<Instant> n = s.cadence().next(t);
        if (n.isEmpty()) {
          break;
        }
        t = n.get();
        ticks.add(t);
      }
    }
    return new View(s, ticks, stored.lastTick() < 0 ? null : Instant.ofEpochMilli(stored.lastTick()));
  }

  /**
   * The record head of a tick's job: type, attempts, the schedule and the tick it is for; for
   * the one job run for missed ticks, how many it stands for ({@code missedTicks}, else 0).
   */
  public static String tickRecordHead(Schedule s, long tickMs, int missedTicks) {
    return JobRecord.newHead(s.type(), s.maxAttempts(), false, Map.of(), ",\"schedule\":\"" + s.id()
        + "\",\"tickAt\":" + tickMs + (missedTicks > 0 ? ",\"missedTicks\":" + missedTicks : ""));
  }

  /** Cadence helper for callers that build schedules from text (the CLI, the dashboard). */
  public static Cadence cadence(String cron, String zone, Duration every) {
    if ((cron == null) == (every == null)) {
      throw new IllegalArgumentException(cron == null ? "give --cron EXPR or --every DURATION"
          : "give --cron or --every, not both");
    }
    if (every != null) {
      if (zone != null) {
        throw new IllegalArgumentException("--tz is for --cron: an --every schedule ticks at multiples of its interval");
      }
      return new Cadence.Every(every);
    }
    return new Cadence.Cron(cron, zone == null ? java.time.ZoneOffset.UTC : Cadence.zone(zone));
  }
}
