package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** start.lua through {@link RedisBroker#start}. */
class StartScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  /** Three ready jobs claimed by c1 in one batch; the first is marked running. */
  private List<Delivery> claimThree() {
    for (String id : List.of("a", "b", "c")) {
      probe.seedReady(id);
    }
    return broker.claims().claimReady("c1", 30_000, 3, null).jobs().stream().map(Claimed::delivery).toList();
  }

  @Test
  void startAcknowledgesTheFinishedJobAndMarksTheNextRunning() {
    List<Delivery> d = claimThree();

    Started s = broker.starts().start("c1", d.get(1), d.get(0));

    assertEquals(new Started(Ack.ACKED, true), s);
    assertEquals(List.of(), probe.placesOf("a"));
    assertNull(probe.rawRecord("a"));
    assertEquals(d.get(1).element(), probe.runningMark("c1"));
    assertEquals(List.of("c", "b"), probe.inFlightIds("c1"));
    assertEquals(2, probe.recordCount());
  }

  @Test
  void startWithNothingToAcknowledgeOnlyMarks() {
    List<Delivery> d = claimThree();

    assertEquals(new Started(Ack.NONE, true), broker.starts().start("c1", d.get(1), null));

    assertEquals(3, probe.recordCount());
    assertEquals(d.get(1).element(), probe.runningMark("c1"));
  }

  @Test
  void deliveryTakenBackIsNotStartedAndTheStaleAcknowledgementIsFenced() {
    List<Delivery> d = claimThree();
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "heartbeat expired", 3);
    String recordA = probe.rawRecord("a");

    Started s = broker.starts().start("c1", d.get(1), d.get(0));

    assertEquals(new Started(Ack.FENCED, false), s);
    assertEquals(List.of("ready"), probe.placesOf("a"));
    assertEquals(recordA, probe.rawRecord("a"));
    assertNull(probe.runningMark("c1"), "nothing is marked: the consumer must not run it");
  }

  @Test
  void theSameIdClaimedAgainIsNotStartedUnderItsOldDelivery() {
    List<Delivery> d = claimThree();
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "heartbeat expired", 3);
    List<Claimed> again = broker.claims().claimReady("c1", 30_000, 3, null).jobs();

    assertEquals(List.of("a", "b", "c"), again.stream().map(Claimed::id).toList());
    assertEquals(new Started(Ack.FENCED, false), broker.starts().start("c1", d.get(1), d.get(0)));

    assertEquals(List.of("inflight:c1"), probe.placesOf("a"), "the stale ack did not touch the fresh claim");
    assertEquals(3, probe.recordCount());
    assertEquals(again.get(0).delivery().element(), probe.runningMark("c1"));
  }

  @Test
  void anotherConsumersDeliveryIsNotStarted() {
    List<Delivery> d = claimThree();

    assertEquals(new Started(Ack.FENCED, false), broker.starts().start("c2", d.get(1), d.get(0)));

    assertEquals(List.of("c", "b", "a"), probe.inFlightIds("c1"));
    assertNull(probe.runningMark("c2"));
  }
}
