package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** claimReady.lua through {@link RedisBroker#claimReady}. */
class ClaimReadyScriptTest {
  private static final long TTL_MS = 30_000;

  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  /** Seeds ready ids job-1 … job-n; job-1 is the oldest (at the right end, claimed first). */
  private void seedReady(int n) {
    for (int i = 1; i <= n; i++) {
      probe.seedReady("job-" + i);
    }
  }

  private static List<String> ids(List<RedisBroker.Claimed> claimed) {
    return claimed.stream().map(RedisBroker.Claimed::id).toList();
  }

  @Test
  void claimTakesThePrefetchWhenItIsBelowTheFairShare() {
    seedReady(10);

    List<RedisBroker.Claimed> claimed = broker.claimReady("c1", TTL_MS, 4);

    assertEquals(List.of("job-1", "job-2", "job-3", "job-4"), ids(claimed));
    assertEquals(6, probe.readyIds().size());
  }

  @Test
  void claimTakesNoMoreThanReadyOverTheRegisteredConsumers() {
    seedReady(10);
    broker.heartbeat(List.of("c1", "c2", "c3"), TTL_MS);

    List<RedisBroker.Claimed> claimed = broker.claimReady("c1", TTL_MS, 100);

    assertEquals(List.of("job-1", "job-2", "job-3"), ids(claimed), "floor(10 / 3) = 3");
    assertEquals(7, probe.readyIds().size());
  }

  @Test
  void claimTakesAtLeastOneWhenTheFairShareRoundsToZero() {
    seedReady(2);
    broker.heartbeat(List.of("c1", "c2", "c3", "c4", "c5"), TTL_MS);

    List<RedisBroker.Claimed> claimed = broker.claimReady("c1", TTL_MS, 100);

    assertEquals(List.of("job-1"), ids(claimed), "floor(2 / 5) = 0, but one is taken");
    assertEquals(List.of("job-2"), probe.readyIds());
  }

  @Test
  void claimMovesTheOldestIdsToTheConsumerWithTheirRecords() {
    seedReady(5);
    List<String> records = List.of(probe.rawRecord("job-1"), probe.rawRecord("job-2"),
        probe.rawRecord("job-3"));

    List<RedisBroker.Claimed> claimed = broker.claimReady("c1", TTL_MS, 3);

    assertEquals(List.of(new RedisBroker.Claimed("job-1", records.get(0)),
        new RedisBroker.Claimed("job-2", records.get(1)),
        new RedisBroker.Claimed("job-3", records.get(2))), claimed);
    for (String id : List.of("job-1", "job-2", "job-3")) {
      assertEquals(List.of("inflight:c1"), probe.placesOf(id), id + " is in exactly one place");
    }
    assertEquals(List.of("job-5", "job-4"), probe.readyIds(), "the younger ones wait, in order");
    assertEquals(5, probe.recordCount(), "records stay while the jobs run");
  }

  @Test
  void claimRegistersTheConsumerUntilNowPlusTtl() {
    seedReady(1);

    long before = probe.redisNowMs();
    broker.claimReady("c1", TTL_MS, 10);
    long after = probe.redisNowMs();

    long expiry = probe.consumerExpiry("c1");
    assertTrue(expiry >= before + TTL_MS && expiry <= after + TTL_MS,
        "expiry " + expiry + " not within [" + (before + TTL_MS) + ", " + (after + TTL_MS) + "]");
  }

  @Test
  void idWithoutARecordIsReturnedWithoutOneAndDropped() {
    probe.seedReady("real");
    broker.redis().lpush(broker.keys().ready(), "ghost"); // a breach of the invariant, as found

    List<RedisBroker.Claimed> claimed = broker.claimReady("c1", TTL_MS, 2);

    assertEquals(List.of(new RedisBroker.Claimed("real", probe.rawRecord("real")),
        new RedisBroker.Claimed("ghost", null)), claimed);
    assertEquals(List.of(), probe.placesOf("ghost"));
    assertEquals(List.of("real"), probe.inFlightIds("c1"));
  }

  @Test
  void emptyReadyGivesNothingAndDoesNotRegisterTheConsumer() {
    probe.seedDelayed("later", 60_000);

    assertEquals(List.of(), broker.claimReady("c1", TTL_MS, 10));

    assertNull(probe.consumerExpiry("c1"));
    assertEquals(List.of(), probe.inFlightIds("c1"));
    assertEquals(List.of("delayed"), probe.placesOf("later"));
  }
}
