package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ack.lua through {@link RedisBroker#ackAll}: acknowledgements and running marks of a worker's consumers. */
class AckScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  private List<Delivery> claim(String consumer, String... ids) {
    for (String id : ids) {
      probe.seedReady(id);
    }
    return broker.claims().claimReady(consumer, 30_000, ids.length, null).jobs().stream()
        .map(Claimed::delivery).toList();
  }

  @Test
  void finishedJobsOfSeveralConsumersAreForgottenAndTheirStartsMarkedInOneCall() {
    List<Delivery> a = claim("c1", "a1", "a2", "a3");
    List<Delivery> b = claim("c2", "b1", "b2");

    List<boolean[]> acked = broker.acks().ackAll(List.of(
        new Report("c1", a.get(2), List.of(a.get(0), a.get(1))),
        new Report("c2", b.get(1), List.of(b.get(0)))));

    assertArrayEquals(new boolean[] {true, true}, acked.get(0));
    assertArrayEquals(new boolean[] {true}, acked.get(1));
    for (String id : List.of("a1", "a2", "b1")) {
      assertEquals(List.of(), probe.placesOf(id));
      assertNull(probe.rawRecord(id));
    }
    assertEquals(a.get(2).element(), probe.runningMark("c1"));
    assertEquals(b.get(1).element(), probe.runningMark("c2"));
    assertEquals(2, probe.recordCount());
  }

  @Test
  void deliveriesThatAreNotTheOldestOrAmongWhichOneIsFencedAreEachAcknowledgedOrFenced() {
    List<Delivery> d = claim("c1", "x1", "x2", "x3", "x4");
    Delivery neverClaimed = new Delivery(d.get(3).token() + 100, "x1");

    boolean[] middle = broker.acks().ackAll(List.of(new Report("c1", null, List.of(d.get(1), d.get(2))))).get(0);
    boolean[] withFenced = broker.acks().ackAll(List.of(new Report("c1", null, List.of(d.get(0), neverClaimed))))
        .get(0);

    assertArrayEquals(new boolean[] {true, true}, middle);
    assertArrayEquals(new boolean[] {true, false}, withFenced);
    assertEquals(List.of(d.get(3).element()), probe.inFlightElements("c1"));
    assertEquals(1, probe.recordCount());
    assertEquals(List.of("inflight:c1"), probe.placesOf("x4"));
  }

  @Test
  void moreThanAThousandJobsAreClaimedInOneCallAndAcknowledgedInOne() {
    for (int i = 0; i < 1_205; i++) {
      probe.seedReady("j" + i);
    }
    List<Claimed> jobs = broker.claims().claimReady("c1", 30_000, 1_205, null).jobs();
    assertEquals(1_205, jobs.size());
    assertEquals("j0", jobs.get(0).id());
    assertEquals(1_205, probe.inFlightElements("c1").size());

    boolean[] acked = broker.acks().ackAll(List.of(new Report("c1", null,
        jobs.stream().map(Claimed::delivery).toList()))).get(0);

    for (boolean a : acked) {
      assertEquals(true, a);
    }
    assertEquals(0, probe.recordCount());
    assertEquals(List.of(), probe.inFlightElements("c1"));
  }

  @Test
  void aDeliveryTakenBackIsFencedAndTheFreshClaimOfTheSameIdStands() {
    Delivery stale = claim("c1", "j1").get(0);
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "presumed dead", 3);
    Delivery fresh = broker.claims().claimReady("c1", 30_000, 1, null).jobs().get(0).delivery();

    List<boolean[]> acked = broker.acks().ackAll(List.of(new Report("c1", null, List.of(stale))));

    assertArrayEquals(new boolean[] {false}, acked.get(0));
    assertEquals(List.of(fresh.element()), probe.inFlightElements("c1"));
    assertEquals(1, probe.recordCount());
  }

  /**
   * A refused acknowledgement says whether its job lives on (FENCED: taken back, its record there)
   * or has ended (ENDED: its record gone, as when this same acknowledgement had landed before), in
   * ack.lua and in a call that folds one in (releaseClaimed, start, claimReady).
   */
  @Test
  void aRefusedAcknowledgementSaysWhetherItsJobLivesOnOrHasEnded() {
    List<Delivery> d = claim("c1", "done1", "taken1", "next1");
    assertEquals(List.of(Ack.ACKED), List.of(broker.acks().ackAllAnswers(
        List.of(new Report("c1", null, List.of(d.get(0))))).get(0)));
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "presumed dead", 3);

    Ack[] again = broker.acks().ackAllAnswers(
        List.of(new Report("c1", null, List.of(d.get(0), d.get(1))))).get(0);

    assertArrayEquals(new Ack[] {Ack.ENDED, Ack.FENCED}, again);
    assertEquals(Ack.ENDED, broker.acks().releaseClaimed("c1", d.get(0)).ack());
    assertEquals(Ack.FENCED, broker.acks().releaseClaimed("c1", d.get(1)).ack());
    assertEquals(Ack.ENDED, broker.claims().claimReady("c1", 30_000, 1, d.get(0)).ack());
    Delivery next = probe.inFlightElements("c1").stream().map(Delivery::parse).findFirst().orElseThrow();
    assertEquals(Ack.ENDED, broker.starts().start("c1", next, d.get(0)).ack());
  }

  @Test
  void aMarkArrivingAfterItsJobWasAcknowledgedIsNotSet() {
    List<Delivery> d = claim("c1", "first", "second");
    // "second" finished and was acknowledged by a later claim before this late report landed
    broker.claims().claimReady("c1", 30_000, 1, d.get(1));
    String mark = probe.runningMark("c1");

    broker.acks().ackAll(List.of(new Report("c1", d.get(1), List.of(d.get(0)))));

    assertEquals(mark, probe.runningMark("c1"), "a mark on a job that has moved on would charge nothing, or the wrong one");
    assertEquals(0, probe.recordCount());
  }

  @Test
  void aReportWithNothingFinishedOnlyMarks() {
    List<Delivery> d = claim("c1", "x", "y");

    assertArrayEquals(new boolean[0], broker.acks().ackAll(List.of(new Report("c1", d.get(1), List.of()))).get(0));

    assertEquals(d.get(1).element(), probe.runningMark("c1"));
    assertEquals(2, probe.recordCount());
  }

  @Test
  void aStartedDeliveryThatIsNotTheOldestLeftIsStillMarked() {
    List<Delivery> d = claim("c1", "a1", "a2", "a3", "a4");

    broker.acks().ackAll(List.of(new Report("c1", d.get(3), List.of(d.get(0), d.get(1)))));

    assertEquals(d.get(3).element(), probe.runningMark("c1"));
    assertEquals(List.of(d.get(3).element(), d.get(2).element()), probe.inFlightElements("c1"));
  }

  @Test
  void aStartedDeliveryAcknowledgedInTheSameReportIsNotMarked() {
    List<Delivery> d = claim("c1", "a1", "a2", "a3");
    String mark = probe.runningMark("c1");

    broker.acks().ackAll(List.of(new Report("c1", d.get(1), List.of(d.get(0), d.get(1)))));

    assertEquals(mark, probe.runningMark("c1"), "a mark on an acknowledged job would charge nothing");
    assertEquals(List.of(d.get(2).element()), probe.inFlightElements("c1"));
  }
}
