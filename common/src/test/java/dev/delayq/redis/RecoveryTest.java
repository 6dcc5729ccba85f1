package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.process.RunningFile;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.args.ListDirection;

/** {@link Recovery}, the one policy of the recoverer, {@code delayq recover} and instant recovery. */
class RecoveryTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final Recovery recovery = new Recovery(broker, new Inspector(RedisFixture.get().redis(), keys), 3);

  @Test
  void expiredConsumersAreTakenBackAndLiveOnesKeepTheirJobs() {
    probe.seedInFlight("silent", "lost");
    probe.seedInFlight("alive", "kept");
    broker.consumerRegistry().heartbeat(List.of("silent"), 1);
    probe.awaitRedisTimePast(probe.consumerExpiry("silent"));

    List<Recovery.TakenBack> taken = recovery.expired(probe.redisNowMs(), 100, "");

    assertEquals(List.of(new Recovery.TakenBack("silent", Recovery.Cause.HEARTBEAT_EXPIRED,
        new Requeued(0, 1, 0, false))), taken);
    assertEquals(List.of("ready"), probe.placesOf("lost"));
    assertEquals(List.of("inflight:alive"), probe.placesOf("kept"));
  }

  @Test
  void anUnregisteredListIsTakenBackAtTheSecondSweepThatSeesIt() {
    probe.seedReady("j1");
    RedisFixture.get().redis().lmove(keys.ready(), keys.inFlight("orphaned"), ListDirection.RIGHT, ListDirection.LEFT);

    assertEquals(List.of(), recovery.sweepUnregistered(""));
    assertEquals(List.of("inflight:orphaned"), probe.placesOf("j1"), "one sighting is not enough");

    assertEquals(1, Recovery.taken(recovery.sweepUnregistered("")));
    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(1, probe.record("j1").get("attempt").asInt(), "never started: uncharged");
  }

  @Test
  void aGoneProcessLosesOnlyItsOwnConsumersJobsRegisteredOrNot() {
    probe.seedInFlight("worker-1:100:1", "a");
    probe.seedInFlight("worker-1:100:2", "b");
    probe.seedInFlight("worker-1:101:1", "other-pid");
    probe.seedReady("unregistered");
    RedisFixture.get().redis().lmove(keys.ready(), keys.inFlight("worker-1:100:3"), ListDirection.RIGHT, ListDirection.LEFT);

    List<Recovery.TakenBack> taken = recovery.processGone("worker-1:100:", "worker-1 exited with 137", true,
        Optional.empty());

    assertEquals(3, taken.size());
    assertEquals(3, Recovery.taken(taken));
    for (String id : List.of("a", "b", "unregistered")) {
      assertEquals(List.of("ready"), probe.placesOf(id), id);
    }
    assertEquals(List.of("inflight:worker-1:101:1"), probe.placesOf("other-pid"));
    assertEquals(List.of("worker-1:101:1"), broker.consumerRegistry().consumers());
  }

  @Test
  void aCrashRecordDecidesWhichJobWasRunningOverTheRunningMark() {
    for (String id : List.of("a", "b", "c")) {
      probe.seedReady(id);
    }
    List<Claimed> batch = broker.claims().claimReady("worker-1:7:1", 30_000, 3, null).jobs();
    // the worker had started b (its running mark was still on its way) when it died
    Map<String, RunningFile.Slot> record = Map.of("worker-1:7:1",
        new RunningFile.Slot(batch.get(1).delivery().element(), List.of()));

    List<Recovery.TakenBack> taken = recovery.processGone("worker-1:7:", "worker-1 killed", true, Optional.of(record));

    assertEquals(new Requeued(2, 1, 0, false), taken.get(0).result());
    assertEquals(2, probe.record("b").get("attempt").asInt());
    assertEquals(1, probe.record("a").get("attempt").asInt(), "a, marked by the claim, had finished");
    assertEquals(1, probe.record("c").get("attempt").asInt());
  }

  @Test
  void jobsTheCrashRecordShowsFinishedAreAcknowledgedAndOnlyTheRunningOneIsCharged() {
    for (String id : List.of("a", "b", "c", "d")) {
      probe.seedReady(id);
    }
    List<Claimed> batch = broker.claims().claimReady("worker-1:9:1", 30_000, 4, null).jobs();
    // a and b had finished, their acknowledgements not yet sent; c was running; d never started
    Map<String, RunningFile.Slot> record = Map.of("worker-1:9:1", new RunningFile.Slot(
        batch.get(2).delivery().element(), List.of(batch.get(0).delivery().element(), batch.get(1).delivery().element())));

    List<Recovery.TakenBack> taken = recovery.processGone("worker-1:9:", "worker-1 halted", true, Optional.of(record));

    assertEquals(new Requeued(1, 1, 0, false, 2), taken.get(0).result());
    assertEquals(List.of(), probe.placesOf("a"));
    assertEquals(List.of(), probe.placesOf("b"));
    assertEquals(null, probe.rawRecord("a"), "done: its record is gone");
    assertEquals(2, probe.record("c").get("attempt").asInt(), "the running one is charged");
    assertEquals(1, probe.record("d").get("attempt").asInt(), "lost 0: the one that never started goes back");
    assertEquals(List.of("ready"), probe.placesOf("d"));
    assertTrue(taken.get(0).describe().contains("2 that had finished acknowledged"), taken.get(0).describe());
  }

  @Test
  void aJobTheCrashRecordShowsEndedCancelledKeepsItsIdAsCancelledNotDone() {
    for (String id : List.of("order-1", "order-2")) {
      broker.enqueue(new NewJob(id, "{\"type\":\"t\",\"maxAttempts\":5,\"keepId\":true", "{}", 0, false));
    }
    List<Claimed> batch = broker.claims().claimReady("worker-1:6:1", 30_000, 2, null).jobs();
    // both had finished before the crash, order-1 cancelled by an operator: as the consumer writes them
    Map<String, RunningFile.Slot> record = Map.of("worker-1:6:1", new RunningFile.Slot(null, List.of(
        batch.get(0).delivery().endedCancelled().ackElement(), batch.get(1).delivery().ackElement())));

    List<Recovery.TakenBack> taken = recovery.processGone("worker-1:6:", "worker-1 killed", true, Optional.of(record));

    assertEquals(new Requeued(0, 0, 0, false, 2), taken.get(0).result());
    String first = batch.get(0).id();
    String second = batch.get(1).id();
    assertTrue(RedisFixture.get().redis().hget(keys.ended(), first).startsWith("cancelled:"), RedisFixture.get().redis().hget(keys.ended(), first));
    assertTrue(RedisFixture.get().redis().hget(keys.ended(), second).startsWith("done:"), RedisFixture.get().redis().hget(keys.ended(), second));
    assertEquals(List.of(), probe.placesOf(first));
    assertEquals(List.of(), probe.placesOf(second));
  }

  @Test
  void aCrashRecordSayingNothingRanChargesNothing() {
    probe.seedInFlight("worker-1:8:1", "finished");

    List<Recovery.TakenBack> taken = recovery.processGone("worker-1:8:", "worker-1 killed", true,
        Optional.of(Map.of()));

    assertEquals(new Requeued(1, 0, 0, false), taken.get(0).result());
    assertEquals(1, probe.record("finished").get("attempt").asInt());
  }

  @Test
  void describeSaysWhatWasChargedAndWhy() {
    Recovery.TakenBack t = new Recovery.TakenBack("w:1:2", Recovery.Cause.PROCESS_GONE,
        new Requeued(31, 1, 1, false));

    assertEquals("32 job(s) of consumer w:1:2 (process gone): 31 back to ready uncharged, 1 that was "
        + "running charged an attempt (1 of them to dead)", t.describe());
  }
}
