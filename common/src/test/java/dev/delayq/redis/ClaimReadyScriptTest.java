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

  private Batch claim(String consumer, int most) {
    return broker.claims().claimReady(consumer, TTL_MS, most, null);
  }

  private static List<String> ids(Batch batch) {
    return batch.jobs().stream().map(Claimed::id).toList();
  }

  @Test
  void claimTakesThePrefetchWhenItIsBelowTheFairShare() {
    seedReady(10);

    Batch batch = claim("c1", 4);

    assertEquals(List.of("job-1", "job-2", "job-3", "job-4"), ids(batch));
    assertEquals(6, probe.readyIds().size());
    assertEquals(6, batch.left(), "the claim says what it left in ready");
  }

  @Test
  void aClaimOnAnEmptyReadyListSaysNothingIsLeft() {
    Batch batch = claim("c1", 4);

    assertTrue(batch.jobs().isEmpty());
    assertEquals(0, batch.left());
  }

  @Test
  void claimTakesNoMoreThanReadyOverTheRegisteredConsumers() {
    seedReady(10);
    broker.consumerRegistry().heartbeat(List.of("c1", "c2", "c3"), TTL_MS);

    assertEquals(List.of("job-1", "job-2", "job-3"), ids(claim("c1", 100)), "floor(10 / 3) = 3");
    assertEquals(7, probe.readyIds().size());
  }

  @Test
  void claimTakesAtLeastItsPaceWhateverTheFairShareButNoMoreThanWaitsOrItsMost() {
    seedReady(6);
    broker.consumerRegistry().heartbeat(List.of("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"), TTL_MS);

    Batch batch = broker.claims().claimReady("c1", TTL_MS, 100, null, 0, 1, shard -> true, 4);
    assertEquals(List.of("job-1", "job-2", "job-3", "job-4"), ids(batch),
        "floor(6 / 8) = 0, and the consumer's pace says 4");
    assertEquals(2, batch.left());
    assertEquals(List.of("job-5"), ids(broker.claims().claimReady("c2", TTL_MS, 1, null, 0, 1, shard -> true, 16)),
        "never more than its most");
    assertEquals(List.of("job-6"), ids(broker.claims().claimReady("c3", TTL_MS, 100, null, 0, 1, shard -> true, 16)),
        "never more than waits");
    assertTrue(probe.readyIds().isEmpty());
  }

  @Test
  void claimTakesAtLeastOneWhenTheFairShareRoundsToZero() {
    seedReady(2);
    broker.consumerRegistry().heartbeat(List.of("c1", "c2", "c3", "c4", "c5"), TTL_MS);

    assertEquals(List.of("job-1"), ids(claim("c1", 100)), "floor(2 / 5) = 0, but one is taken");
    assertEquals(List.of("job-2"), probe.readyIds());
  }

  @Test
  void eachClaimedJobIsADeliveryWithItsOwnTokenAndOnlyTheFirstIsMarkedRunning() {
    seedReady(5);
    List<String> records = List.of(probe.rawRecord("job-1"), probe.rawRecord("job-2"),
        probe.rawRecord("job-3"));

    Batch batch = claim("c1", 3);

    List<Claimed> jobs = batch.jobs();
    assertEquals(records, jobs.stream().map(Claimed::rawRecord).toList());
    long first = jobs.get(0).delivery().token();
    assertEquals(List.of(first, first + 1, first + 2), jobs.stream().map(j -> j.delivery().token()).toList());
    assertEquals(List.of(jobs.get(2).delivery().element(), jobs.get(1).delivery().element(),
        jobs.get(0).delivery().element()), probe.inFlightElements("c1"), "newest on the left");
    assertEquals(jobs.get(0).delivery().element(), probe.runningMark("c1"));
    for (String id : List.of("job-1", "job-2", "job-3")) {
      assertEquals(List.of("inflight:c1"), probe.placesOf(id), id + " is in exactly one place");
    }
    assertEquals(List.of("job-5", "job-4"), probe.readyIds(), "the younger ones wait, in order");
    assertEquals(5, probe.recordCount(), "records stay while the jobs run");
    assertEquals(Ack.NONE, batch.ack());
  }

  @Test
  void tokensNeverRepeatAcrossClaims() {
    seedReady(4);

    long a = claim("c1", 2).jobs().get(1).delivery().token();
    long b = claim("c2", 2).jobs().get(0).delivery().token();

    assertEquals(a + 1, b);
  }

  @Test
  void theFinishedJobIsAcknowledgedInTheSameCall() {
    seedReady(3);
    Batch first = claim("c1", 1);
    Delivery finished = first.jobs().get(0).delivery();

    Batch next = broker.claims().claimReady("c1", TTL_MS, 1, finished);

    assertEquals(Ack.ACKED, next.ack());
    assertEquals(List.of(), probe.placesOf("job-1"));
    assertNull(probe.rawRecord("job-1"));
    assertEquals(List.of("job-2"), ids(next));
    assertEquals(List.of("job-2"), probe.inFlightIds("c1"));
  }

  @Test
  void theAcknowledgementLandsEvenWhenNothingIsLeftToClaim() {
    seedReady(1);
    Delivery finished = claim("c1", 1).jobs().get(0).delivery();

    Batch next = broker.claims().claimReady("c1", TTL_MS, 10, finished);

    assertEquals(Ack.ACKED, next.ack());
    assertEquals(List.of(), next.jobs());
    assertEquals(0, probe.recordCount());
  }

  @Test
  void anAcknowledgementOfADeliveryTakenBackIsFencedAndChangesNothing() {
    seedReady(1);
    Delivery stale = claim("c1", 1).jobs().get(0).delivery();
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "presumed dead", 3);
    Delivery fresh = claim("c1", 1).jobs().get(0).delivery(); // the same id, claimed again
    String record = probe.rawRecord("job-1");

    Batch next = broker.claims().claimReady("c1", TTL_MS, 1, stale);

    assertEquals(Ack.FENCED, next.ack());
    assertEquals(List.of(fresh.element()), probe.inFlightElements("c1"), "the fresh claim stands");
    assertEquals(record, probe.rawRecord("job-1"));
  }

  @Test
  void claimRegistersTheConsumerUntilNowPlusTtl() {
    seedReady(1);

    long before = probe.redisNowMs();
    claim("c1", 10);
    long after = probe.redisNowMs();

    long expiry = probe.consumerExpiry("c1");
    assertTrue(expiry >= before + TTL_MS && expiry <= after + TTL_MS,
        "expiry " + expiry + " not within [" + (before + TTL_MS) + ", " + (after + TTL_MS) + "]");
  }

  @Test
  void idWithoutARecordIsReportedAndDropped() {
    probe.seedReady("real");
    RedisFixture.get().redis().lpush(broker.keys().ready(), "ghost"); // a breach of the invariant, as found

    Batch batch = claim("c1", 2);

    assertEquals(List.of("real"), ids(batch));
    assertEquals(List.of("ghost"), batch.dropped());
    assertEquals(List.of(), probe.placesOf("ghost"));
    assertEquals(List.of("real"), probe.inFlightIds("c1"));
  }

  @Test
  void emptyReadyGivesNothingAndDoesNotRegisterTheConsumer() {
    probe.seedDelayed("later", 60_000);

    assertEquals(List.of(), claim("c1", 10).jobs());

    assertNull(probe.consumerExpiry("c1"));
    assertEquals(List.of(), probe.inFlightIds("c1"));
    assertEquals(List.of("delayed"), probe.placesOf("later"));
  }
}
