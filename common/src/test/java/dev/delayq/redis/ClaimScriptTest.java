package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.args.ListDirection;

/** claim.lua through {@link RedisBroker#claim} (BLMOVE, then the script). */
class ClaimScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  @Test
  void claimMakesTheIdADeliveryMarkedRunningAndReturnsItsRecord() {
    probe.seedReady("j1");
    String record = probe.rawRecord("j1");

    long before = probe.redisNowMs();
    Claimed claimed = broker.claims().claim("c1", 1.0, 30_000).orElseThrow();
    long after = probe.redisNowMs();

    assertEquals("j1", claimed.id());
    assertEquals(record, claimed.rawRecord());
    assertTrue(claimed.delivery().token() > 0, "a delivery has a token");
    assertEquals(List.of(claimed.delivery().element()), probe.inFlightElements("c1"));
    assertEquals(claimed.delivery().element(), probe.runningMark("c1"), "it starts at once");
    assertEquals(List.of("inflight:c1"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"), "the record stays while the job runs");
    long expiry = probe.consumerExpiry("c1");
    assertTrue(expiry >= before + 30_000 && expiry <= after + 30_000, "registered until now + ttl");
    assertEquals(List.of(), probe.readyIds());
  }

  @Test
  void claimTakesTheOldestReadyIdFirst() {
    probe.seedReady("first");
    probe.seedReady("second");

    assertEquals("first", broker.claims().claim("c1", 1.0, 30_000).orElseThrow().id());
    assertEquals(List.of("second"), probe.readyIds());
    assertEquals(List.of("first"), probe.inFlightIds("c1"));
  }

  @Test
  void eachClaimIsANewDeliveryEvenOfTheSameId() {
    probe.seedReady("j1");
    Delivery first = broker.claims().claim("c1", 1.0, 30_000).orElseThrow().delivery();
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "worker exited", 3);

    Delivery second = broker.claims().claim("c1", 1.0, 30_000).orElseThrow().delivery();

    assertEquals(first.id(), second.id());
    assertNotEquals(first.token(), second.token());
    assertEquals(List.of(second.element()), probe.inFlightElements("c1"));
  }

  @Test
  void idWithoutARecordIsDroppedAndTheConsumerStillRegistered() {
    RedisFixture.get().redis().lpush(broker.keys().ready(), "ghost"); // a breach of the invariant, as found

    Claimed claimed = broker.claims().claim("c1", 1.0, 30_000).orElseThrow();

    assertEquals("ghost", claimed.id());
    assertNull(claimed.rawRecord());
    assertEquals(List.of(), probe.placesOf("ghost"));
    assertTrue(probe.consumerExpiry("c1") != null);
  }

  @Test
  void idTakenBackBetweenBlmoveAndTheScriptIsNotClaimed() {
    probe.seedReady("j1");
    Keys k = broker.keys();
    // BLMOVE moved it, then the consumer was presumed dead and its list taken back: uncharged
    RedisFixture.get().redis().lmove(k.ready(), k.inFlight("c1"), ListDirection.RIGHT, ListDirection.LEFT);
    assertEquals(new Requeued(1, 0, 0, false),
        broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "worker presumed dead", 3));

    Object reply = new Scripts(RedisFixture.get().redis()).eval(Script.CLAIM,
        List.of(k.jobs(), k.inFlight("c1"), k.consumers(), k.running(), k.deliveries()),
        List.of("j1", "c1", "30000"));

    assertEquals(List.of(0L), reply, "not claimed: the consumer must not run it");
    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(1, probe.record("j1").get("attempt").asInt());
    assertNull(probe.runningMark("c1"));
  }

  @Test
  void claimOnAnEmptyQueueTimesOutWithNothing() {
    assertEquals(Optional.empty(), broker.claims().claim("c1", 0.05, 30_000));

    assertEquals(List.of(), probe.inFlightIds("c1"));
    assertNull(probe.consumerExpiry("c1"));
  }

  @Test
  void claimReRegistersAConsumerTheRecovererRemoved() {
    probe.seedInFlight("c1", "j1");
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "worker exited", 3);
    assertNull(probe.consumerExpiry("c1"));

    assertEquals("j1", broker.claims().claim("c1", 1.0, 30_000).orElseThrow().id());

    assertTrue(probe.consumerExpiry("c1") != null);
    assertEquals(List.of("inflight:c1"), probe.placesOf("j1"));
  }

  @Test
  void eachClaimTakesADifferentJob() {
    probe.seedReady("j1");
    probe.seedReady("j2");

    String a = broker.claims().claim("c1", 1.0, 30_000).orElseThrow().id();
    String b = broker.claims().claim("c2", 1.0, 30_000).orElseThrow().id();

    assertEquals(List.of("j1", "j2"), List.of(a, b));
    assertEquals(List.of("inflight:c1"), probe.placesOf("j1"));
    assertEquals(List.of("inflight:c2"), probe.placesOf("j2"));
  }

  @Test
  void aWokenClaimTakesTheRestOfItsFairShareInClaimOrderOnlyTheFirstMarkedRunning() {
    for (String id : List.of("j1", "j2", "j3", "j4", "j5")) {
      probe.seedReady(id);
    }

    Woken w = broker.claims().claimWoken("c1", 1.0, 30_000, 0, 3);

    assertEquals(List.of("j1", "j2", "j3"), w.jobs().stream().map(Claimed::id).toList());
    assertEquals(2, w.left(), "ready's length after the claim");
    long first = w.jobs().get(0).delivery().token();
    for (int i = 0; i < 3; i++) {
      assertEquals(first + i, w.jobs().get(i).delivery().token(), "consecutive tokens");
      assertEquals(probe.rawRecord("j" + (i + 1)), w.jobs().get(i).rawRecord());
    }
    assertEquals(List.of("j3", "j2", "j1"), probe.inFlightIds("c1"), "newest on the left: the first claimed runs first");
    assertEquals(w.jobs().get(0).delivery().element(), probe.runningMark("c1"), "only the moved one starts at once");
    assertEquals(List.of("j5", "j4"), probe.readyIds());
  }

  @Test
  void aWokenClaimTakesNoMoreThanReadyOverTheRegisteredConsumers() {
    broker.consumerRegistry().heartbeat(List.of("c1", "c2", "c3"), 30_000);
    for (int i = 1; i <= 7; i++) {
      probe.seedReady("j" + i);
    }

    Woken w = broker.claims().claimWoken("c1", 1.0, 30_000, 0, 32);

    assertEquals(2, w.jobs().size(), "7 waited, 3 consumers: a share of 2");
    assertEquals(5, w.left());
  }

  @Test
  void aWokenClaimTakesAtLeastItsPaceWhateverTheFairShareButNoMoreThanWaitsOrItsMost() {
    broker.consumerRegistry().heartbeat(List.of("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"), 30_000);
    for (int i = 1; i <= 7; i++) {
      probe.seedReady("j" + i);
    }

    Woken w = broker.claims().claimWoken("c1", 1.0, 30_000, 0, 32, 4);

    assertEquals(List.of("j1", "j2", "j3", "j4"), w.jobs().stream().map(Claimed::id).toList(),
        "7 waited over 8 consumers (a share of 1), and its pace says 4");
    assertEquals(3, w.left());
    Woken rest = broker.claims().claimWoken("c2", 1.0, 30_000, 0, 2, 16);
    assertEquals(2, rest.jobs().size(), "never more than its most");
    Woken last = broker.claims().claimWoken("c3", 1.0, 30_000, 0, 32, 16);
    assertEquals(List.of("j7"), last.jobs().stream().map(Claimed::id).toList(),
        "never more than waits");
    assertEquals(0, last.left());
  }

  @Test
  void aWokenClaimOfOneLooksNoFurtherAndAnEmptyReadySaysSo() {
    probe.seedReady("j1");
    probe.seedReady("j2");
    Woken one = broker.claims().claimWoken("c1", 1.0, 30_000, 0, 1);
    assertEquals(1, one.jobs().size());
    assertEquals(-1, one.left(), "not looked at");

    Woken last = broker.claims().claimWoken("c1", 1.0, 30_000, 0, 32);
    assertEquals(List.of("j2"), last.jobs().stream().map(Claimed::id).toList());
    assertEquals(0, last.left());
    assertEquals(0, broker.claims().claimWoken("c1", 0.05, 30_000, 0, 32).left(), "a wait that timed out saw none");
  }

  @Test
  void aWokenClaimDropsAFurtherIdWithoutARecord() {
    probe.seedReady("j1");
    RedisFixture.get().redis().lpush(broker.keys().ready(), "ghost"); // a breach of the invariant, as found
    probe.seedReady("j3");
    probe.seedReady("j4");

    Woken w = broker.claims().claimWoken("c1", 1.0, 30_000, 0, 32);

    assertEquals(List.of("ghost"), w.dropped());
    assertEquals(List.of("j1", "j3", "j4"), w.jobs().stream().map(Claimed::id).toList());
    assertEquals(List.of(), probe.placesOf("ghost"), "dropped, in no list");
  }
}
