package dev.delayq.scheduler;

import dev.delayq.redis.NewJob;
import static dev.delayq.testing.QueueProbe.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.process.OutageLog;
import dev.delayq.process.ShutdownSignal;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SchedulerLoop#pass()} on a real Redis, without its thread. */
class SchedulerLoopTest {
  private static final long LEASE_TTL_MS = 60_000;
  private static final long RECOVER_INTERVAL_NANOS = 3_600_000_000_000L;

  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  private SchedulerLoop loop(String owner, int batchSize) {
    return loop(owner, batchSize, 20);
  }

  private SchedulerLoop loop(String owner, int batchSize, long standbyGraceMs) {
    return new SchedulerLoop(new ShardLeases(broker, owner, LEASE_TTL_MS), new Forwarder(broker, batchSize),
        new Recoverer(broker, 3), new IdRetentionTrimmer(broker), new Waiter(), new ShutdownSignal(), RECOVER_INTERVAL_NANOS,
        standbyGraceMs, new OutageLog("test"));
  }

  /**
   * Enqueues the ids due a moment from now, in order, in one call, checks they all wait in delayed
   * (the lead is one a loaded host's enqueue cannot outrun: a job added already due goes straight
   * to ready, and a test of full batches would then see part-filled ones), and waits until they
   * all are due.
   */
  private void seedDueInDelayed(String... ids) {
    long base = probe.redisNowMs() + 500;
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < ids.length; i++) {
      jobs.add(at(ids[i], "{}", base + i));
    }
    broker.enqueueAll(jobs);
    assertEquals(ids.length, probe.delayedIds().size(), "every seeded id waits in delayed");
    probe.awaitRedisTimePast(base + ids.length);
  }

  @Test
  void passAsksToRunAgainAtOnceWhileBatchesComeBackFull() {
    seedDueInDelayed("a", "b", "c", "d", "e");
    SchedulerLoop loop = loop("me", 2);

    for (int full = 1; full <= 2; full++) {
      long wakeAt = loop.pass();
      long after = System.nanoTime();
      assertTrue(wakeAt - after <= 0, "full batch " + full + " should ask for the next pass now");
    }
    long wakeAt = loop.pass();
    long after = System.nanoTime();

    assertTrue(wakeAt - after > 1_000_000_000L, "a part-filled batch sleeps");
    assertEquals(List.of("e", "d", "c", "b", "a"), probe.readyIds());
  }

  @Test
  void passSleepsUntilTheNextDueTimeWhenTheBatchWasNotFull() {
    seedDueInDelayed("now");
    long dueAt = probe.seedDelayed("later", 5_000);
    SchedulerLoop loop = loop("me", 10);

    long before = System.nanoTime();
    long wakeAt = loop.pass();
    long after = System.nanoTime();

    // (the probe reads Redis's clock cut to the ms, the scheduler waits to the microsecond: up to 1 ms less)
    long untilDue = (dueAt - probe.redisNowMs()) * 1_000_000 - 1_000_000;
    assertTrue(wakeAt - before >= untilDue && wakeAt - after <= 5_000_000_000L,
        "wakes " + (wakeAt - after) / 1_000_000 + " ms from now, the job is due in about "
            + untilDue / 1_000_000 + " ms");
    assertEquals(List.of("now"), probe.readyIds());
  }

  @Test
  void passWithNothingDelayedSleepsUntilTheLeaseRenewal() {
    SchedulerLoop loop = loop("me", 10);

    long before = System.nanoTime();
    long wakeAt = loop.pass();
    long after = System.nanoTime();

    long renewal = LEASE_TTL_MS * 1_000_000 / 3;
    assertTrue(wakeAt - before >= renewal && wakeAt - after <= renewal,
        "wakes " + (wakeAt - before) / 1_000_000 + " ms from now, the lease renews in " + renewal / 1_000_000);
  }

  @Test
  void standbyLeavesJobsThatAreNotOverdueByTheGraceToTheLeaseHolder() {
    seedDueInDelayed("a", "b");
    new ShardLeases(broker, "other", LEASE_TTL_MS).tick();
    SchedulerLoop standby = loop("me", 10, 10_000);

    long before = System.nanoTime();
    long wakeAt = standby.pass();

    assertEquals(List.of("a", "b"), probe.delayedIds());
    assertEquals(List.of(), probe.readyIds());
    assertTrue(wakeAt - before > 9_000_000_000L && wakeAt - before <= 10_100_000_000L,
        "looks again when the first is overdue by the grace, in " + (wakeAt - before) / 1_000_000 + " ms");
    assertEquals("other", RedisFixture.get().redis().get(broker.keys().leader()));
  }

  @Test
  void standbyForwardsWhatTheLeaseHolderLeftOverdueByTheGraceButDoesNotRecover() {
    probe.seedInFlight("silent", "j1");
    broker.consumerRegistry().heartbeat(List.of("silent"), 1);
    seedDueInDelayed("a", "b");
    long laterDue = probe.seedDelayed("later", 5_000);
    new ShardLeases(broker, "other", LEASE_TTL_MS).tick();
    probe.awaitRedisTimePast(Math.max(probe.redisNowMs() + 50, probe.consumerExpiry("silent")));
    SchedulerLoop standby = loop("me", 10, 50);

    long before = System.nanoTime();
    long wakeAt = standby.pass();

    assertEquals(List.of("b", "a"), probe.readyIds());
    assertEquals(List.of("later"), probe.delayedIds());
    long untilOverdue = (laterDue + 50 - probe.redisNowMs()) * 1_000_000;
    assertTrue(wakeAt - before >= untilOverdue - 5_000_000 && wakeAt - before <= untilOverdue + 50_000_000,
        "looks again when 'later' is overdue by the grace: in " + (wakeAt - before) / 1_000_000 + " ms, expected "
            + untilOverdue / 1_000_000);
    assertEquals(List.of("inflight:silent"), probe.placesOf("j1"), "recovery stays with the lease holder");
    assertEquals("other", RedisFixture.get().redis().get(broker.keys().leader()));
  }

  @Test
  void leaderRecoversSilentConsumersInItsFirstTick() {
    probe.seedInFlight("silent", "j1");
    broker.consumerRegistry().heartbeat(List.of("silent"), 1);
    probe.awaitRedisTimePast(probe.consumerExpiry("silent"));

    loop("me", 10).pass();

    assertEquals(List.of("ready"), probe.placesOf("j1"));
  }
}
