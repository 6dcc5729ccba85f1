package dev.delayq.scheduler;

import dev.delayq.redis.StoredSchedule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.Schedules;
import dev.delayq.redis.RedisBroker;
import dev.delayq.schedule.Cadence;
import dev.delayq.schedule.Schedule;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@link ScheduleTicker} and {@link Schedules} against the test Redis; passes are called directly. */
class ScheduleTickerTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final DelayQueue queue = new DelayQueue(broker, 1 << 20, 5);
  private final Schedules schedules = queue.schedules();
  private final ScheduleTicker ticker = new ScheduleTicker(broker);

  private Schedule every(String id, Duration interval, Schedule.Missed missed, String payload) {
    return new Schedule(id, new Cadence.Every(interval), "report", payload, 3, false, missed);
  }

  private StoredSchedule stored(String id) {
    return broker.scheduleStore().schedule(id).orElseThrow();
  }

  @Test
  void aTickIsCreatedAheadAsADelayedJobDueAtItsTickCarryingIt() {
    long before = probe.redisNowMs();
    Schedules.View v = schedules.upsert(every("s1", Duration.ofSeconds(1), Schedule.Missed.SKIP, "{\"n\":1}"));
    long tick = v.nextTicks().get(0).toEpochMilli();
    assertTrue(tick >= before + 1_000, "the first tick is at least a second after the save");
    assertEquals(5, v.nextTicks().size());
    assertEquals(tick + 4_000, v.nextTicks().get(4).toEpochMilli());

    assertEquals(ScheduleTicker.Outcome.CREATED, ticker.tickOne(stored("s1"), tick - 500));

    String id = "s1@" + tick;
    assertEquals(List.of("delayed"), probe.placesOf(id));
    assertEquals(tick, probe.dueAt(id));
    JsonNode r = probe.record(id);
    assertEquals("report", r.get("type").asText());
    assertEquals(3, r.get("maxAttempts").asInt());
    assertEquals("s1", r.get("schedule").asText());
    assertEquals(tick, r.get("tickAt").asLong());
    assertTrue(probe.rawRecord(id).endsWith(",\"p\":{\"n\":1}}"));
    assertEquals(tick + 1_000, stored("s1").nextTick());
    assertEquals(tick, stored("s1").lastTick());
  }

  @Test
  void twoTickersThatReadTheSameScheduleMakeOneJob() {
    Schedules.View v = schedules.upsert(every("s1", Duration.ofSeconds(1), Schedule.Missed.SKIP, "{}"));
    long tick = v.nextTicks().get(0).toEpochMilli();
    StoredSchedule read = stored("s1");
    ScheduleTicker other = new ScheduleTicker(broker);

    assertEquals(ScheduleTicker.Outcome.CREATED, ticker.tickOne(read, tick - 500));
    assertEquals(ScheduleTicker.Outcome.STALE, other.tickOne(read, tick - 500));

    assertEquals(1, probe.recordCount());
    assertEquals(tick + 1_000, stored("s1").nextTick());
  }

  @Test
  void twoTickersRacingForFourSecondsMakeExactlyOneJobPerTick() throws Exception {
    Schedules.View v = schedules.upsert(every("s1", Duration.ofSeconds(1), Schedule.Missed.SKIP, "{}"));
    long first = v.nextTicks().get(0).toEpochMilli();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = List.of(new Thread(() -> race(ticker, stop)),
        new Thread(() -> race(new ScheduleTicker(broker), stop)));
    threads.forEach(Thread::start);
    probe.awaitRedisTimePast(first + 2_500);
    Thread.sleep(1_600);
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }

    List<String> ids = probe.delayedIds();
    assertTrue(ids.size() >= 4, "ticks created: " + ids);
    for (int i = 0; i < ids.size(); i++) {
      assertEquals("s1@" + (first + i * 1_000L), ids.get(i), "every tick once, in order: " + ids);
    }
    assertEquals(ids.size(), probe.recordCount());
    assertEquals(String.valueOf(ids.size()), RedisFixture.get().redis().hget(broker.keys().stats(), "count:enqueued:report"));
  }

  private static void race(ScheduleTicker t, AtomicBoolean stop) {
    while (!stop.get()) {
      t.pass();
    }
  }

  @Test
  void ticksMissedWhileNoSchedulerRanAreSkipped() {
    long tick = schedules.upsert(every("s1", Duration.ofSeconds(1), Schedule.Missed.SKIP, "{}"))
        .nextTicks().get(0).toEpochMilli();

    // no scheduler ran over three ticks: the next pass comes 3.5 s after the tick it finds
    assertEquals(ScheduleTicker.Outcome.SKIPPED_MISSED, ticker.tickOne(stored("s1"), tick + 3_500));

    assertEquals(0, probe.recordCount());
    assertEquals(tick + 4_000, stored("s1").nextTick(), "it goes on from its next tick after now");
  }

  @Test
  void ticksMissedWhileNoSchedulerRanRunOnceForTheLatest() {
    long tick = schedules.upsert(every("s1", Duration.ofSeconds(1), Schedule.Missed.RUN_ONCE, "{}"))
        .nextTicks().get(0).toEpochMilli();

    assertEquals(ScheduleTicker.Outcome.CREATED, ticker.tickOne(stored("s1"), tick + 3_500));

    assertEquals(1, probe.recordCount());
    String id = "s1@" + (tick + 3_000);
    assertEquals(tick + 3_000, probe.record(id).get("tickAt").asLong(), "the latest missed tick");
    assertEquals(4, probe.record(id).get("missedTicks").asInt(), "it stands for the four ticks missed");
    assertEquals(tick + 4_000, stored("s1").nextTick());
    assertEquals(ScheduleTicker.Outcome.CREATED, ticker.tickOne(stored("s1"), tick + 3_600), "then on as usual");
    assertEquals(2, probe.recordCount());
  }

  @Test
  void pauseWithdrawsATickCreatedAheadAndResumeGoesOnFromNow() {
    long tick = schedules.upsert(every("s1", Duration.ofSeconds(60), Schedule.Missed.SKIP, "{}"))
        .nextTicks().get(0).toEpochMilli();
    // a ticker created the next tick early (as if it ran just before it)
    assertEquals(ScheduleTicker.Outcome.CREATED, ticker.tickOne(stored("s1"), tick - 500));
    String id = "s1@" + tick;
    boolean farEnough = tick > probe.redisNowMs() + 1_500;

    Schedules.View paused = schedules.pause("s1").orElseThrow();

    assertTrue(paused.schedule().paused());
    assertEquals(List.of(), paused.nextTicks());
    assertEquals(-1, stored("s1").nextTick());
    if (farEnough) {
      assertEquals(List.of(), probe.placesOf(id), "the created-ahead tick is withdrawn");
      assertNull(probe.rawRecord(id));
    }
    assertEquals(List.of(), broker.scheduleStore().schedulesDueBy(Long.MAX_VALUE, 10), "a paused schedule does not tick");

    Schedules.View resumed = schedules.resume("s1").orElseThrow();
    assertTrue(resumed.nextTicks().get(0).toEpochMilli() >= tick || !farEnough);
  }

  @Test
  void anUpsertReplacesTheDefinitionForTheNextTicks() {
    long tick = schedules.upsert(every("s1", Duration.ofSeconds(1), Schedule.Missed.SKIP, "{\"v\":1}"))
        .nextTicks().get(0).toEpochMilli();

    Schedules.View v = schedules.upsert(every("s1", Duration.ofSeconds(2), Schedule.Missed.RUN_ONCE, "{\"v\":2}"));
    long next = v.nextTicks().get(0).toEpochMilli();
    assertEquals(ScheduleTicker.Outcome.CREATED, ticker.tickOne(stored("s1"), next - 500));

    assertEquals(0, next % 2_000);
    assertTrue(next >= tick - 1_000);
    assertTrue(probe.rawRecord("s1@" + next).endsWith(",\"p\":{\"v\":2}}"));
    assertEquals(Schedule.Missed.RUN_ONCE, v.schedule().missed());
    assertEquals(1, schedules.list().size());
  }

  @Test
  void removeForgetsTheScheduleAndRunNowEnqueuesOneJobOutsideItsTicks() {
    schedules.upsert(every("s1", Duration.ofSeconds(1), Schedule.Missed.SKIP, "{\"v\":1}"));

    EnqueueResult now = schedules.runNow(queue, "s1").orElseThrow();
    assertTrue(now.id().startsWith("s1@run-"), now.id());
    assertEquals(List.of("ready"), probe.placesOf(now.id()));

    assertTrue(schedules.remove("s1"));
    assertTrue(schedules.list().isEmpty());
    assertTrue(schedules.get("s1").isEmpty());
    assertEquals(List.of(), broker.scheduleStore().schedulesDueBy(Long.MAX_VALUE, 10));
    assertTrue(!schedules.remove("s1") && schedules.runNow(queue, "s1").isEmpty() && schedules.pause("s1").isEmpty());
  }

  @Test
  void aScheduleOfAnUnknownShapeIsRefusedAtUpsert() {
    Schedule bad = new Schedule("s1", new Cadence.Every(Duration.ofSeconds(1)), "Bad Type!", "{}", 3, false, null);
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> schedules.upsert(bad));
    assertTrue(e.getMessage().contains("job type 'Bad Type!' is not valid"), e.getMessage());
    IllegalArgumentException json = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> schedules.upsert(every("s1", Duration.ofSeconds(1), null, "{nope")));
    assertTrue(json.getMessage().contains("not JSON"), json.getMessage());
    assertTrue(schedules.list().isEmpty());
  }

  /** Writes a definition as another client could, past every check of upsert, with its next tick. */
  private void plant(String id, String definition, long nextTick) {
    RedisFixture.get().redis().hset(broker.keys().schedules(), id, definition);
    RedisFixture.get().redis().zadd(broker.keys().scheduleNext(), nextTick, id);
  }

  @Test
  void aBrokenScheduleIsSteppedOverAndAnEverySecondOneBesideItTicksOnTime() throws Exception {
    long first = schedules.upsert(every("s1", Duration.ofSeconds(1), Schedule.Missed.SKIP, "{}"))
        .nextTicks().get(0).toEpochMilli();
    plant("mars", "{\"id\":\"mars\",\"cron\":\"* * * * *\",\"tz\":\"Mars/Olympus\",\"type\":\"report\"}",
        probe.redisNowMs() - 60_000);
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(ScheduleTicker.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> events =
        new ch.qos.logback.core.read.ListAppender<>();
    events.start();
    logger.addAppender(events);
    try {
      runTicker(3_500);
    } finally {
      logger.detachAppender(events);
    }

    List<String> warnings = events.list.stream().filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
        .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).toList();
    assertEquals(List.of("schedule mars is broken, it does not tick (the others do) until it is saved again or"
        + " removed: Unknown time-zone ID: Mars/Olympus"), warnings, "said once, over every pass");

    assertEquals(ScheduleTicker.Outcome.BROKEN, ticker.tickOne(stored("mars"), probe.redisNowMs()));
    List<String> ticks = probe.delayedIds().stream().filter(id -> id.startsWith("s1@")).toList();
    assertTrue(ticks.size() >= 3, "the healthy schedule ticked beside the broken one: " + ticks);
    assertTrue(schedules.remove("mars"));
    runTicker(1_200);
    List<String> after = probe.delayedIds().stream().filter(id -> id.startsWith("s1@")).toList();
    assertTrue(after.size() > ticks.size(), "it goes on once the broken one is removed: " + after);
    for (int i = 0; i < after.size(); i++) {
      assertEquals("s1@" + (first + i * 1_000L), after.get(i), "every tick once, none missed: " + after);
    }
    for (String id : after) {
      assertNull(probe.record(id).get("missedTicks"), "no tick was missed: " + id);
    }
  }

  /** Calls the ticker's passes on this thread for {@code ms}, waiting as its loop would. */
  private void runTicker(long ms) throws InterruptedException {
    long end = System.nanoTime() + ms * 1_000_000;
    while (System.nanoTime() < end) {
      long wait = ticker.pass() - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(Math.min(wait, end - System.nanoTime() + 1_000_000) / 1_000_000);
      }
    }
  }

  @Test
  void theListShowsTheOthersWithEachBrokenScheduleMarked() {
    schedules.upsert(every("s1", Duration.ofSeconds(60), Schedule.Missed.SKIP, "{}"));
    long later = probe.redisNowMs() + 60_000;
    plant("mars", "{\"id\":\"mars\",\"cron\":\"0 9 * * *\",\"tz\":\"Mars/Olympus\",\"type\":\"report\"}", later);
    plant("nocron", "{\"id\":\"nocron\",\"cron\":\"every tuesday\",\"type\":\"report\"}", later);
    plant("badid", "{\"id\":\"bad id!\",\"everyMs\":1000,\"type\":\"report\"}", later);
    plant("nojson", "{nope", later);
    RedisFixture.get().redis().hset(broker.keys().scheduleLast(), "s1", "not a tick");

    Schedules.Listing all = schedules.listing();

    assertEquals(List.of("s1"), all.schedules().stream().map(v -> v.schedule().id()).toList());
    assertEquals(List.of("badid", "mars", "nocron", "nojson"), all.broken().stream().map(Schedules.Broken::id).toList());
    assertTrue(all.broken().get(1).reason().contains("Mars/Olympus"), all.broken().get(1).reason());
    assertTrue(all.broken().get(2).reason().contains("every tuesday"), all.broken().get(2).reason());
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> schedules.pause("mars"));
    assertTrue(e.getMessage().startsWith("schedule mars is broken (Unknown time-zone ID: Mars/Olympus)"), e.getMessage());
    assertTrue(schedules.remove("mars"));
    assertEquals(3, schedules.listing().broken().size());
  }

  @Test
  void aCronThatNeverFiresIsRefusedNamingIt() {
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> schedules.upsert(new Schedule("feb30", new Cadence.Cron("0 0 30 2 *", java.time.ZoneOffset.UTC),
            "report", "{}", 3, false, null)));
    assertTrue(e.getMessage().contains("'0 0 30 2 *' never fires"), e.getMessage());
    assertTrue(schedules.list().isEmpty());
    assertEquals("cron 0 0 29 2 * (UTC)", schedules.upsert(new Schedule("leap", new Cadence.Cron("0 0 29 2 *",
        java.time.ZoneId.of("UTC")), "report", "{}", 3, false, null)).schedule().cadence().describe(),
        "a leap day fires, every four years");
  }
}
