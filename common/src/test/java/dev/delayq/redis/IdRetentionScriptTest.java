package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Id retention through the scripts that end a job (ack, claimReady, start, releaseClaimed,
 * cancel, purgeDead), enqueue.lua that refuses a kept id, and forgetEnded.lua that frees them.
 */
class IdRetentionScriptTest {
  private static final long HOUR = 3_600_000;
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys).withLimits(Duration.ofHours(1), 1 << 20);
  private final QueueProbe probe = new QueueProbe(broker);
  private final Admin admin = broker.admin(3);

  /** A job whose id the caller chose: its head carries keepId ("k":1), as DelayQueue writes it. */
  private static NewJob kept(String id, long delayMs) {
    return new NewJob(id, JobRecord.newHead(QueueProbe.TYPE, 5, true, java.util.Map.of(), ""),
        "{\"n\":1}", delayMs, false);
  }

  /** The same job as an older producer wrote it, with full names ("keepId":true). */
  private static NewJob keptFullNames(String id, long delayMs) {
    return new NewJob(id, QueueProbe.fullNamesHead(QueueProbe.TYPE, 5) + ",\"keepId\":true",
        "{\"n\":1}", delayMs, false);
  }

  private Delivery claimOne(RedisBroker b, String consumer) {
    Batch batch = b.claims().claimReady(consumer, 30_000, 1, null);
    assertEquals(1, batch.jobs().size());
    return batch.jobs().get(0).delivery();
  }

  @Test
  void aKeptIdStaysTakenAfterItsJobIsDoneAndASecondEnqueueSaysAlreadyFinished() {
    broker.enqueue(kept("p-1", 0));
    Delivery d = claimOne(broker, "c1");
    long before = probe.redisNowMs();
    assertTrue(broker.acks().ackAll(List.of(new Report("c1", null, List.of(d)))).get(0)[0]);

    Enqueued again = broker.enqueue(kept("p-1", 0));

    assertEquals(EnqueueCode.ENDED, again.code());
    assertTrue(again.value() >= before + HOUR && again.value() <= probe.redisNowMs() + HOUR, "free one window after the end");
    assertEquals(0, probe.recordCount(), "nothing was written");
    assertEquals(List.of(), probe.placesOf("p-1"));
    Admin.JobView view = admin.inspect("p-1").orElseThrow();
    assertEquals(Admin.State.ENDED, view.state());
    assertEquals("done", view.ended().outcome());
    assertEquals(again.value(), view.ended().freeAt());
  }

  @Test
  void aRecordWrittenWithFullNamesKeepsItsIdTooAndAGeneratedOneInEitherFormatDoesNot() {
    broker.enqueue(keptFullNames("old-kept", 0));
    broker.enqueue(new NewJob("old-plain", QueueProbe.fullNamesHead(QueueProbe.TYPE, 5), "{}", 0, false));
    broker.enqueue(QueueProbe.delayed("new-plain", "{}", 0));
    assertTrue(probe.rawRecord("old-kept").startsWith("{\"type\":"), probe.rawRecord("old-kept"));

    for (int i = 0; i < 3; i++) {
      Delivery d = claimOne(broker, "c1");
      assertTrue(broker.acks().ackAll(List.of(new Report("c1", null, List.of(d)))).get(0)[0]);
    }

    assertEquals(EnqueueCode.ENDED, broker.enqueue(keptFullNames("old-kept", 0)).code());
    assertEquals(1, RedisFixture.get().redis().hlen(broker.keys().ended()), "only the kept id is remembered");
  }

  @Test
  void aClaimedDeliveryCarriesWhatItsRecordSaysOfItsIdSoTheAckReadsNoRecord() {
    broker.enqueue(kept("k-1", 0));
    broker.enqueue(QueueProbe.delayed("g-1", "{}", 0));
    List<Claimed> jobs = broker.claims().claimReady("c1", 30_000, 2, null).jobs();
    Delivery keptOne = jobs.get(0).delivery().id().equals("k-1") ? jobs.get(0).delivery() : jobs.get(1).delivery();
    Delivery plainOne = keptOne == jobs.get(0).delivery() ? jobs.get(1).delivery() : jobs.get(0).delivery();
    assertEquals('k', keptOne.ackHint());
    assertEquals('f', plainOne.ackHint());
    // the records swapped behind the deliveries' backs: what the acks do shows they were not read
    String keptRecord = probe.rawRecord("k-1");
    RedisFixture.get().redis().hset(keys.jobs(), "k-1", probe.rawRecord("g-1"));
    RedisFixture.get().redis().hset(keys.jobs(), "g-1", keptRecord);

    assertTrue(broker.acks().ackAll(List.of(new Report("c1", null, List.of(keptOne, plainOne))))
        .get(0)[0]);

    assertEquals(EnqueueCode.ENDED, broker.enqueue(kept("k-1", 0)).code());
    assertEquals(1, RedisFixture.get().redis().hlen(keys.ended()), "g-1 left nothing");
    assertEquals(0, probe.recordCount());
  }

  @Test
  void anAckWithoutWhatTheRecordSaysReadsItAsBefore() {
    broker.enqueue(kept("k-1", 0));
    Delivery hinted = claimOne(broker, "c1");
    Delivery bare = new Delivery(hinted.token(), hinted.id()); // as an older worker sends it
    assertEquals('u', bare.ackHint());

    assertTrue(broker.acks().ackAll(List.of(new Report("c1", null, List.of(bare)))).get(0)[0]);

    assertEquals(EnqueueCode.ENDED, broker.enqueue(kept("k-1", 0)).code());
  }

  @Test
  void aHintedAckOfADeliveryTakenBackIsFencedAndRemembersNothing() {
    broker.enqueue(kept("k-1", 0));
    Delivery stale = claimOne(broker, "c1");
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "presumed dead", 3);

    assertFalse(broker.acks().ackAll(List.of(new Report("c1", null, List.of(stale)))).get(0)[0]);
    assertFalse(broker.acks().ackAll(List.of(new Report("c1", null, List.of(stale.endedCancelled()))))
        .get(0)[0]);

    assertEquals(List.of("ready"), probe.placesOf("k-1"));
    assertTrue(probe.rawRecord("k-1") != null);
    assertEquals(0, RedisFixture.get().redis().hlen(keys.ended()));
    assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), keys).breaches());
  }

  @Test
  void everyScriptThatAcknowledgesLeavesTheTombstone() {
    for (String id : List.of("a", "b", "c")) {
      broker.enqueue(kept(id, 0));
    }
    Delivery a = claimOne(broker, "c1");
    Delivery b = broker.claims().claimReady("c1", 30_000, 1, a).jobs().get(0).delivery(); // claimReady acks a
    assertFalse(broker.starts().start("c1", b, b).started()); // start acks b, then finds it gone
    Delivery c = claimOne(broker, "c2");
    assertEquals(0, broker.acks().releaseClaimed("c2", c).released()); // releaseClaimed acks c

    for (String id : List.of("a", "b", "c")) {
      assertEquals(EnqueueCode.ENDED, broker.enqueue(kept(id, 0)).code(), id);
    }
    assertEquals(0, probe.recordCount());
  }

  @Test
  void aRunningJobAcknowledgedAsCancelledRecordsCancelledThroughEveryAcknowledgingScript() {
    for (String id : List.of("a", "b", "c", "d")) {
      broker.enqueue(kept(id, 0));
    }
    Delivery a = claimOne(broker, "c1");
    Delivery b = broker.claims().claimReady("c1", 30_000, 1, a.endedCancelled()).jobs().get(0).delivery(); // acks a
    assertFalse(broker.starts().start("c1", b, b.endedCancelled()).started()); // start acks b, then finds it gone
    Delivery c = claimOne(broker, "c2");
    assertEquals(0, broker.acks().releaseClaimed("c2", c.endedCancelled()).released()); // acks c
    Delivery d = claimOne(broker, "c3");
    assertTrue(broker.acks().ackAll(List.of(new Report("c3", null, List.of(d.endedCancelled())))).get(0)[0]);

    for (String id : List.of("a", "b", "c", "d")) {
      assertEquals("cancelled", admin.inspect(id).orElseThrow().ended().outcome(), id);
      assertEquals(EnqueueCode.ENDED, broker.enqueue(kept(id, 0)).code(), id);
    }
    assertEquals(0, probe.recordCount());
    assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), keys).breaches());
  }

  @Test
  void cancelledAndPurgedIdsStayTakenAndADeadOneSaysDead() {
    broker.enqueue(kept("cancel-me", 60_000));
    assertTrue(broker.cancel("cancel-me"));
    broker.enqueue(kept("kill-me", 0));
    Delivery d = claimOne(broker, "c1");
    assertTrue(broker.outcomes().deadLetter("c1", d, "boom"));

    assertEquals(EnqueueCode.ENDED, broker.enqueue(kept("cancel-me", 0)).code());
    assertEquals("cancelled", admin.inspect("cancel-me").orElseThrow().ended().outcome());
    assertEquals(EnqueueCode.DEAD, broker.enqueue(kept("kill-me", 0)).code());
    assertEquals(1, admin.purgeDead(null));
    assertEquals(EnqueueCode.ENDED, broker.enqueue(kept("kill-me", 0)).code());
    assertEquals("purged", admin.inspect("kill-me").orElseThrow().ended().outcome());
    assertEquals(0, probe.recordCount());
  }

  @Test
  void aPendingIdIsToldApartFromAFinishedOne() {
    broker.enqueue(kept("p-1", 60_000));

    Enqueued again = broker.enqueue(kept("p-1", 0));

    assertEquals(EnqueueCode.PENDING, again.code());
    assertEquals(List.of("delayed"), probe.placesOf("p-1"));
  }

  @Test
  void generatedIdsLeaveNothingBehind() {
    probe.seedReady("generated");
    Delivery d = claimOne(broker, "c1");
    broker.acks().ackAll(List.of(new Report("c1", null, List.of(d))));

    assertEquals(0, RedisFixture.get().redis().hlen(keys.ended()));
    assertEquals(0, RedisFixture.get().redis().zcard(keys.endedExpiry()));
    assertTrue(broker.enqueue(QueueProbe.delayed("generated", "{}", 0)).accepted());
  }

  @Test
  void retentionZeroTurnsItOff() {
    RedisBroker off = broker.withLimits(Duration.ZERO, 1 << 20);
    off.enqueue(kept("p-1", 0));
    Delivery d = claimOne(off, "c1");
    off.acks().ackAll(List.of(new Report("c1", null, List.of(d))));

    assertEquals(0, RedisFixture.get().redis().hlen(keys.ended()));
    assertTrue(off.enqueue(kept("p-1", 0)).accepted());
  }

  @Test
  void anIdIsFreeAgainOnceItsWindowPassedEvenBeforeItIsTrimmed() {
    RedisBroker brief = broker.withLimits(Duration.ofMillis(50), 1 << 20);
    brief.enqueue(kept("p-1", 60_000));
    assertTrue(brief.cancel("p-1"));
    assertEquals(EnqueueCode.ENDED, brief.enqueue(kept("p-1", 60_000)).code());
    probe.awaitRedisTimePast(probe.redisNowMs() + 60);

    assertTrue(brief.enqueue(kept("p-1", 60_000)).accepted());
    assertEquals(0, RedisFixture.get().redis().hlen(keys.ended()), "enqueue trimmed the passed entry");
    assertFalse(admin.inspect("p-1").orElseThrow().state() == Admin.State.ENDED);
  }

  @Test
  void forgetEndedFreesPassedIdsInBoundedChunksAndKeepsTheOthers() {
    RedisBroker brief = broker.withLimits(Duration.ofMillis(1), 1 << 20);
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 2_500; i++) {
      jobs.add(kept("old-" + i, 60_000));
    }
    brief.enqueueAll(jobs);
    for (NewJob j : jobs) {
      brief.cancel(j.id());
    }
    broker.enqueue(kept("young", 60_000));
    broker.cancel("young");
    probe.awaitRedisTimePast(probe.redisNowMs() + 5);

    assertEquals(1_000, broker.scheduling().forgetEnded(1_000));
    assertEquals(1_000, broker.scheduling().forgetEnded(1_000));
    assertEquals(500, broker.scheduling().forgetEnded(1_000));
    assertEquals(0, broker.scheduling().forgetEnded(1_000));
    assertEquals(1, RedisFixture.get().redis().hlen(keys.ended()));
    assertEquals(1, RedisFixture.get().redis().zcard(keys.endedExpiry()));
    assertEquals(EnqueueCode.ENDED, broker.enqueue(kept("young", 0)).code());
  }

  @Test
  void enqueueRefusesAPayloadOverTheLimitWhoeverSendsIt() {
    RedisBroker small = broker.withLimits(Duration.ofHours(1), 10);

    Enqueued e = small.enqueue(QueueProbe.delayed("big", "{\"n\":\"0123456789\"}", 0));

    assertEquals(EnqueueCode.TOO_LARGE, e.code());
    assertEquals(18, e.value());
    assertEquals(0, probe.recordCount());
  }

  @Test
  void checkAcceptsKeptIdsAndReportsOneThatAlsoHasARecord() {
    broker.enqueue(kept("p-1", 0));
    broker.acks().ackAll(List.of(new Report("c1", null, List.of(claimOne(broker, "c1")))));
    InvariantCheck invariant = new InvariantCheck(RedisFixture.get().redis(), keys);
    assertEquals(List.of(), invariant.breaches());

    RedisFixture.get().redis().hset(keys.jobs(), "p-1", "{}");
    RedisFixture.get().redis().zadd(keys.delayed(), 1, "p-1");
    RedisFixture.get().redis().zadd(keys.endedExpiry(), 1, "lonely");

    List<String> found = invariant.breaches().stream().map(InvariantCheck.Breach::toString).sorted().toList();
    assertEquals(List.of("lonely: ended, but in ended:expiry only", "p-1: ended, but it has a record in jobs"), found);
  }
}
