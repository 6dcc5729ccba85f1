package dev.delayq.redis;

import dev.delayq.metrics.Distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.metrics.LatencyBuckets;
import dev.delayq.metrics.StatsRecorder;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link Admin}'s reads (dead list, inspect, stats, forecast) and its recover command. */
class AdminTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final Admin admin = new Admin(RedisFixture.get().redis(), keys, 3);

  // ---- dead list ---------------------------------------------------------------------------

  @Test
  void deadListShowsNewestFirstWithTheirErrors() {
    probe.seedDead("c1", "first", "boom 1");
    probe.seedDead("c1", "second", "boom 2");
    RedisFixture.get().redis().zadd(keys.dead(), 1, "first");

    List<Admin.DeadJob> dead = admin.deadList(null, 10);

    assertEquals(List.of("second", "first"), dead.stream().map(Admin.DeadJob::id).toList());
    Admin.DeadJob second = dead.get(0);
    assertEquals(QueueProbe.TYPE, second.type());
    assertEquals("boom 2", second.lastError());
    assertEquals("{\"n\":1}", second.payloadJson());
    assertEquals(QueueProbe.MAX_ATTEMPTS, second.maxAttempts());
    assertEquals(1, dead.get(1).deadAt());
  }

  @Test
  void deadListFiltersByTypeAndStopsAtTheLimit() {
    for (int i = 0; i < 5; i++) {
      RedisFixture.get().redis().hset(keys.jobs(), "a" + i, "{\"type\":\"alpha\",\"payload\":{}}");
      RedisFixture.get().redis().zadd(keys.dead(), 100 + i, "a" + i);
      RedisFixture.get().redis().hset(keys.jobs(), "b" + i, "{\"type\":\"beta\",\"payload\":{}}");
      RedisFixture.get().redis().zadd(keys.dead(), 200 + i, "b" + i);
    }

    assertEquals(List.of("a4", "a3"), admin.deadList("alpha", 2).stream().map(Admin.DeadJob::id).toList());
    assertEquals(10, admin.deadList(null, 100).size());
    assertEquals(List.of(), admin.deadList("gamma", 10));
  }

  @Test
  void malformedDeadRecordStillListsWithTypeQuestionMark() {
    Delivery d = probe.seedInFlight("c1", "bad");
    RedisFixture.get().redis().hset(keys.jobs(), "bad", "{oops");
    broker.outcomes().deadLetter("c1", d, "malformed record");
    RedisFixture.get().redis().zadd(keys.dead(), 5, "ghost");

    List<Admin.DeadJob> dead = admin.deadList(null, 10);

    Admin.DeadJob bad = dead.get(0);
    assertEquals("?", bad.type());
    assertEquals("malformed record", bad.lastError());
    assertEquals("{oops", bad.payloadJson());
    assertEquals("?", dead.get(1).type());
    assertEquals("no record in jobs", dead.get(1).lastError());
  }

  // ---- inspect -----------------------------------------------------------------------------

  @Test
  void inspectFindsEachPlace() {
    probe.seedDead("c2", "dead", "boom");
    probe.seedInFlight("c1", "running");
    probe.seedReady("ready");
    long due = probe.seedDelayed("delayed", 60_000);

    Admin.JobView d = admin.inspect("delayed").orElseThrow();
    assertEquals(Admin.State.DELAYED, d.state());
    assertEquals(due, d.dueAt());
    assertEquals(1, d.attempt());
    assertEquals(QueueProbe.TYPE, d.type());
    assertEquals(probe.rawRecord("delayed"), d.rawRecord());

    Admin.JobView r = admin.inspect("running").orElseThrow();
    assertEquals(Admin.State.IN_FLIGHT, r.state());
    assertEquals("c1", r.consumer());

    assertEquals(Admin.State.READY, admin.inspect("ready").orElseThrow().state());

    Admin.JobView x = admin.inspect("dead").orElseThrow();
    assertEquals(Admin.State.DEAD, x.state());
    assertEquals("boom", x.lastError());
    assertEquals(probe.deadAt("dead"), x.deadAt());
  }

  @Test
  void inspectOfAnUnknownIdIsEmptyAndOfAnOrphanSaysSo() {
    RedisFixture.get().redis().hset(keys.jobs(), "orphan", "{\"type\":\"t\",\"payload\":{}}");

    assertEquals(Optional.empty(), admin.inspect("nope"));
    assertEquals(Admin.State.ORPHAN, admin.inspect("orphan").orElseThrow().state());
  }

  // ---- recover -----------------------------------------------------------------------------

  @Test
  void recoverTakesBackExpiredAndUnregisteredConsumersAndOrphans() {
    probe.seedReady("silent-job");
    broker.claims().claim("silent", 1.0, 1);
    probe.awaitRedisTimePast(probe.consumerExpiry("silent"));
    probe.seedInFlight("ghost", "ghost-job");
    RedisFixture.get().redis().zrem(keys.consumers(), "ghost");
    probe.seedInFlight("alive", "alive-job");
    RedisFixture.get().redis().hset(keys.jobs(), "orphan", "{\"type\":\"t\",\"payload\":{}}");

    Admin.RecoverReport report = admin.recover();

    assertEquals(new Admin.RecoverReport(1, 1, 2, 2, 0, 1, 0), report);
    assertEquals(List.of("ready"), probe.placesOf("silent-job"));
    assertEquals(List.of("ready"), probe.placesOf("ghost-job"));
    assertEquals(List.of("ready"), probe.placesOf("orphan"));
    assertEquals(List.of("inflight:alive"), probe.placesOf("alive-job"));
    assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), keys).breaches());
  }

  @Test
  void recoverOnAHealthyQueueDoesNothing() {
    probe.seedDelayed("d", 60_000);
    probe.seedInFlight("alive", "running");

    assertEquals(new Admin.RecoverReport(0, 0, 0, 0, 0, 0, 0), admin.recover());
  }

  // ---- stats -------------------------------------------------------------------------------

  @Test
  void statsShowDepthsBacklogAndOldestOverdue() {
    long now = probe.redisNowMs();
    broker.enqueue(QueueProbe.at("overdue-5s", "{}", now - 5_000));  // lands in ready
    RedisFixture.get().redis().hset(keys.jobs(), "overdue-9s", "{\"type\":\"t\",\"dueAt\":" + (now - 9_000) + ",\"payload\":{}}");
    RedisFixture.get().redis().zadd(keys.delayed(), now - 9_000, "overdue-9s");
    probe.seedDelayed("later", 60_000);

    Admin.Stats s = admin.stats();

    assertEquals(new Inspector.Depths(2, 1, 0, 0, 3), s.depths());
    assertEquals(2, s.backlog());
    assertTrue(s.oldestOverdueMs() >= 9_000 && s.oldestOverdueMs() < 20_000, "" + s.oldestOverdueMs());
  }

  @Test
  void oldestOverdueComesFromReadyWhenNothingDueIsDelayed() {
    broker.enqueue(QueueProbe.at("overdue", "{}", probe.redisNowMs() - 7_000));

    Admin.Stats s = admin.stats();

    assertEquals(1, s.backlog());
    assertTrue(s.oldestOverdueMs() >= 7_000 && s.oldestOverdueMs() < 18_000, "" + s.oldestOverdueMs());
  }

  @Test
  void emptyQueueHasNoBacklogNoRateAndNoLateness() {
    Admin.Stats s = admin.stats();

    assertEquals(0, s.backlog());
    assertEquals(0, s.oldestOverdueMs());
    assertEquals(0.0, s.jobsPerSecond());
    assertNull(s.latenessP50Ms());
    assertNull(s.latenessP99Ms());
    assertEquals(Map.of(), s.counters());
  }

  @Test
  void rateAndLatenessComeFromTheLastMinuteOfFlushedCounters() {
    StatsRecorder recorder = new StatsRecorder(keys);
    for (int i = 0; i < 98; i++) {
      recorder.started("mail", 3);          // bucket le 5 ms
      recorder.finished("mail", StatsRecorder.Event.SUCCEEDED, 10);
    }
    recorder.started("mail", 400);          // bucket le 500 ms
    recorder.started("mail", 90_000);       // past the last bound
    recorder.finished("mail", StatsRecorder.Event.FAILED, 10);
    recorder.also("mail", StatsRecorder.Event.DEAD);
    long nowSecond = probe.redisNowMs() / 1000;
    recorder.flush(RedisFixture.get().redis(), nowSecond - 5);
    // a flush older than a minute counts in the totals only
    recorder.finished("mail", StatsRecorder.Event.SUCCEEDED, 10);
    recorder.flush(RedisFixture.get().redis(), nowSecond - 120);

    Admin.Stats s = admin.stats();

    assertEquals(99 / 60.0, s.jobsPerSecond(), 1e-9);
    assertEquals(5L, s.latenessP50Ms());
    assertEquals(500L, s.latenessP99Ms());
    assertEquals(100, s.startedLastMinute());
    assertEquals(Map.of("started", 100L, "succeeded", 99L, "failed", 1L, "dead", 1L), s.counters().get("mail"));
  }

  @Test
  void quantilePastTheLastBoundIsReportedAsThatBound() {
    long[] buckets = new long[LatencyBuckets.BOUNDS_MS.length + 1];
    buckets[LatencyBuckets.BOUNDS_MS.length] = 3;
    assertEquals(60_000L, new Distribution(buckets, 0).upperBoundMs(0.5));
    buckets[0] = 100;
    assertEquals(1L, new Distribution(buckets, 0).upperBoundMs(0.5));
    assertEquals(60_000L, new Distribution(buckets, 0).upperBoundMs(0.99));
  }

  @Test
  void enqueuedCountsShowPerType() {
    broker.enqueue(QueueProbe.delayed("x", "{}", 60_000));

    assertEquals(1L, admin.stats().counters().get(QueueProbe.TYPE).get("enqueued"));
  }

  // ---- forecast ----------------------------------------------------------------------------

  @Test
  void forecastCountsJobsFallingDuePerStep() {
    long now = probe.redisNowMs();
    RedisFixture.get().redis().zadd(keys.delayed(), now - 1_000, "already-due");
    RedisFixture.get().redis().zadd(keys.delayed(), now + 30_000, "m0");
    RedisFixture.get().redis().zadd(keys.delayed(), now + 90_000, "m1a");
    RedisFixture.get().redis().zadd(keys.delayed(), now + 100_000, "m1b");
    RedisFixture.get().redis().zadd(keys.delayed(), now + 10 * 60_000 + 500, "m10");
    RedisFixture.get().redis().zadd(keys.delayed(), now + 2 * 3_600_000, "beyond");

    List<Long> perMinute = admin.dueForecast(Duration.ofHours(1), Duration.ofMinutes(1));

    assertEquals(60, perMinute.size());
    assertEquals(1L, perMinute.get(0));
    assertEquals(2L, perMinute.get(1));
    assertEquals(1L, perMinute.get(10));
    assertEquals(4L, perMinute.stream().mapToLong(Long::longValue).sum());
  }
}
