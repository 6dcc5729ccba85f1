package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The byte bounds of a claim (claimReady.lua, claim.lua): a claim pulls at most
 * worker.claimMaxBytes of records, and a record past queue.maxPayloadBytes plus the head's room,
 * which only another client can have written, is claimed by its length and never pulled.
 */
class ClaimBoundsScriptTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);

  private static String payloadOf(int bytes) {
    return "{\"pad\":\"" + "x".repeat(bytes - 10) + "\"}";
  }

  @Test
  void aClaimStopsShortOfItsByteBudgetButAlwaysTakesOneJob() {
    for (int i = 0; i < 5; i++) {
      probe.seedReady(QueueProbe.at("j" + i, payloadOf(900), probe.redisNowMs() - 1_000));
    }
    RedisBroker tight = broker.withLimits(Duration.ZERO, 1 << 20, 2_100);
    RedisBroker tiny = broker.withLimits(Duration.ZERO, 1 << 20, 10);

    List<Claimed> two = tight.claims().claimReady("c1", 30_000, 5, null).jobs();
    List<Claimed> one = tiny.claims().claimReady("c2", 30_000, 5, null).jobs();

    assertEquals(List.of("j0", "j1"), two.stream().map(Claimed::id).toList());
    assertEquals(List.of("j2"), one.stream().map(Claimed::id).toList());
    assertEquals(List.of("j4", "j3"), probe.readyIds());
    assertEquals(two.get(0).delivery().token() + 1, two.get(1).delivery().token());
  }

  @Test
  void aRecordPastTheLimitIsClaimedByItsLengthAndNeverPulled() {
    RedisBroker limited = broker.withLimits(Duration.ZERO, 100, 1 << 20);
    String planted = QueueProbe.fullNamesHead(QueueProbe.TYPE, 5) + ",\"attempt\":1,\"createdAt\":1,\"dueAt\":1,\"payload\":"
        + payloadOf(70_000) + "}";
    RedisFixture.get().redis().hset(keys.jobs(), "big", planted);
    RedisFixture.get().redis().lpush(keys.ready(), "big");
    probe.seedReady(QueueProbe.at("small", "{}", probe.redisNowMs() - 1_000));

    List<Claimed> jobs = limited.claims().claimReady("c1", 30_000, 2, null).jobs();

    assertEquals("big", jobs.get(0).id());
    assertNull(jobs.get(0).rawRecord());
    assertEquals(planted.length(), jobs.get(0).tooLongBytes());
    assertTrue(jobs.get(1).rawRecord().contains(",\"p\":{}"), "a small one behind it comes whole");
    assertTrue(limited.outcomes().deadLetter("c1", jobs.get(0).delivery(), "too long"));
    assertEquals(List.of("dead"), probe.placesOf("big"));
    assertTrue(probe.rawRecord("big").endsWith(payloadOf(70_000) + "}"), "its payload is kept as stored");
  }

  @Test
  void theBlockingClaimAlsoAnswersALongRecordByItsLength() {
    RedisBroker limited = broker.withLimits(Duration.ZERO, 100, 1 << 20);
    RedisFixture.get().redis().hset(keys.jobs(), "big", "{\"type\":\"t\",\"payload\":" + payloadOf(70_000) + "}");
    RedisFixture.get().redis().lpush(keys.ready(), "big");

    Claimed c = limited.claims().claim("c1", 1, 30_000).orElseThrow();

    assertNull(c.rawRecord());
    assertTrue(c.tooLongBytes() > 70_000);
    assertTrue(!c.dropped());
    assertEquals(List.of("inflight:c1"), probe.placesOf("big"));
  }
}
