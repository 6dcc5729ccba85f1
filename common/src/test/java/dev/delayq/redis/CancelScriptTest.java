package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** cancel.lua through {@link RedisBroker#cancel}. */
class CancelScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  @Test
  void delayedJobIsWithdrawnWithItsRecord() {
    probe.seedDelayed("j1", 60_000);
    probe.seedDelayed("other", 60_000);

    assertTrue(broker.cancel("j1"));

    assertEquals(List.of(), probe.placesOf("j1"));
    assertNull(probe.rawRecord("j1"));
    assertEquals(List.of("other"), probe.delayedIds());
    assertEquals(1, probe.recordCount());
  }

  @Test
  void readyJobIsWithdrawnWithItsRecord() {
    probe.seedReady("j1");
    probe.seedReady("other");

    assertTrue(broker.cancel("j1"));

    assertEquals(List.of(), probe.placesOf("j1"));
    assertNull(probe.rawRecord("j1"));
    assertEquals(List.of("other"), probe.readyIds());
  }

  @Test
  void runningJobCannotBeCancelled() {
    probe.seedInFlight("c1", "j1");
    String record = probe.rawRecord("j1");

    assertFalse(broker.cancel("j1"));

    assertEquals(List.of("inflight:c1"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"));
  }

  @Test
  void deadJobCannotBeCancelled() {
    probe.seedDead("c1", "j1", "boom");
    String record = probe.rawRecord("j1");

    assertFalse(broker.cancel("j1"));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"));
  }

  @Test
  void unknownOrAlreadyCancelledJobIsNotCancelled() {
    probe.seedDelayed("j1", 60_000);
    assertTrue(broker.cancel("j1"));

    assertFalse(broker.cancel("j1"));
    assertFalse(broker.cancel("never-enqueued"));
    assertEquals(0, probe.recordCount());
  }
}
