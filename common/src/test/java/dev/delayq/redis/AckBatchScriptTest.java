package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ack.lua with several ids at once, through {@link RedisBroker#ackAll}. */
class AckBatchScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  @Test
  void ackAllForgetsEveryJobInOneCall() {
    probe.seedInFlight("c1", "j1");
    probe.seedInFlight("c1", "j2");
    probe.seedInFlight("c1", "j3");

    assertArrayEquals(new boolean[] {true, true, true}, broker.ackAll("c1", List.of("j2", "j3", "j1")));

    for (String id : List.of("j1", "j2", "j3")) {
      assertEquals(List.of(), probe.placesOf(id));
      assertNull(probe.rawRecord(id));
    }
    assertEquals(0, probe.recordCount());
  }

  @Test
  void ackAllAnswersPerIdAndLeavesFencedIdsUntouched() {
    probe.seedInFlight("c1", "mine");
    probe.seedInFlight("c2", "theirs");
    probe.seedInFlight("c1", "taken-back");
    broker.redis().lrem(broker.keys().inFlight("c1"), 1, "taken-back");
    broker.redis().rpush(broker.keys().ready(), "taken-back"); // as the recoverer leaves it
    String theirs = probe.rawRecord("theirs");
    String takenBack = probe.rawRecord("taken-back");

    boolean[] acked = broker.ackAll("c1", List.of("theirs", "mine", "taken-back", "unknown"));

    assertArrayEquals(new boolean[] {false, true, false, false}, acked);
    assertNull(probe.rawRecord("mine"));
    assertEquals(List.of("inflight:c2"), probe.placesOf("theirs"));
    assertEquals(theirs, probe.rawRecord("theirs"));
    assertEquals(List.of("ready"), probe.placesOf("taken-back"));
    assertEquals(takenBack, probe.rawRecord("taken-back"));
    assertEquals(2, probe.recordCount());
  }

  @Test
  void theSameIdTwiceInOneBatchIsAckedOnce() {
    probe.seedInFlight("c1", "j1");

    assertArrayEquals(new boolean[] {true, false}, broker.ackAll("c1", List.of("j1", "j1")));

    assertEquals(0, probe.recordCount());
  }
}
