package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** requeueOrphan.lua through {@link Admin#requeueOrphan}. */
class RequeueOrphanScriptTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final Admin admin = new Admin(RedisFixture.get().redis(), keys, 3);

  @Test
  void recordInNoStructureGoesToTheRunningEndOfReady() {
    probe.seedReady("waiting");
    RedisFixture.get().redis().hset(keys.jobs(), "orphan", "{\"type\":\"t\",\"attempt\":1,\"payload\":{\"n\":1.10}}");

    assertEquals(OrphanRequeue.REQUEUED, admin.requeueOrphan("orphan"));

    assertEquals(List.of("waiting", "orphan"), probe.readyIds());
    assertEquals("orphan record (delayq recover)", probe.record("orphan").get("recoveredFrom").asText());
    assertTrue(probe.rawRecord("orphan").endsWith(",\"p\":{\"n\":1.10}}"));
  }

  @Test
  void idInAnyPlaceIsNotAnOrphan() {
    probe.seedDead("c2", "dead", "boom");
    probe.seedInFlight("c1", "running");
    probe.seedReady("ready");
    probe.seedDelayed("delayed", 60_000);

    for (String id : List.of("delayed", "running", "ready", "dead", "unknown")) {
      assertEquals(OrphanRequeue.NOT_ORPHAN, admin.requeueOrphan(id), id);
    }

    assertEquals(List.of("ready"), probe.readyIds());
    assertEquals(List.of("inflight:c1"), probe.placesOf("running"));
    assertEquals(List.of("dead"), probe.placesOf("dead"));
  }

  @Test
  void idWhoseDeliveryIsInFlightIsNotAnOrphan() {
    Delivery d = probe.seedInFlight("c1", "running");
    assertEquals(List.of(d.element()), probe.inFlightElements("c1"));

    assertEquals(OrphanRequeue.NOT_ORPHAN, admin.requeueOrphan("running"));

    assertEquals(List.of("inflight:c1"), probe.placesOf("running"));
  }

  @Test
  void orphanThatCannotBeWrittenBackGoesToDeadWithTheReason() {
    String unencodable = "{\"type\":\"t\",\"attempt\":1,\"maxAttempts\":1e999,\"payload\":{}}";
    RedisFixture.get().redis().hset(keys.jobs(), "orphan", unencodable);

    assertEquals(OrphanRequeue.DEAD_LETTERED, admin.requeueOrphan("orphan"));

    assertEquals(List.of("dead"), probe.placesOf("orphan"));
    assertEquals(unencodable, probe.record("orphan").get("malformed").asText());
    assertTrue(probe.record("orphan").get("lastError").asText().contains("cannot be written back"));
    assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), keys).breaches());
  }

  @Test
  void unreadableOrphanGoesToDeadKeptVerbatim() {
    RedisFixture.get().redis().hset(keys.jobs(), "orphan", "{broken");

    assertEquals(OrphanRequeue.DEAD_LETTERED, admin.requeueOrphan("orphan"));

    assertEquals(List.of("dead"), probe.placesOf("orphan"));
    assertEquals("{broken", probe.record("orphan").get("malformed").asText());
  }
}
