package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ack.lua through {@link RedisBroker#ack}. */
class AckScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  @Test
  void ackForgetsTheJobEverywhere() {
    probe.seedInFlight("c1", "j1");

    assertTrue(broker.ack("c1", "j1"));

    assertEquals(List.of(), probe.placesOf("j1"));
    assertNull(probe.rawRecord("j1"));
    assertEquals(0, probe.recordCount());
  }

  @Test
  void ackLeavesTheConsumersOtherJobsAlone() {
    probe.seedInFlight("c1", "j1");
    probe.seedInFlight("c1", "j2");

    assertTrue(broker.ack("c1", "j1"));

    assertEquals(List.of("j2"), probe.inFlightIds("c1"));
    assertEquals(1, probe.recordCount());
  }

  @Test
  void ackByAnotherConsumerIsFencedAndChangesNothing() {
    probe.seedInFlight("c1", "j1");
    String record = probe.rawRecord("j1");

    assertFalse(broker.ack("c2", "j1"));

    assertEquals(List.of("inflight:c1"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"));
  }

  @Test
  void ackOfAJobThatIsNotInFlightIsFenced() {
    probe.seedDelayed("delayed", 60_000);
    probe.seedReady("ready");

    assertFalse(broker.ack("c1", "delayed"));
    assertFalse(broker.ack("c1", "ready"));
    assertFalse(broker.ack("c1", "unknown"));

    assertEquals(List.of("delayed"), probe.placesOf("delayed"));
    assertEquals(List.of("ready"), probe.placesOf("ready"));
    assertEquals(2, probe.recordCount());
  }

  @Test
  void secondAckOfTheSameJobIsFenced() {
    probe.seedInFlight("c1", "j1");
    assertTrue(broker.ack("c1", "j1"));

    assertFalse(broker.ack("c1", "j1"));
  }
}
