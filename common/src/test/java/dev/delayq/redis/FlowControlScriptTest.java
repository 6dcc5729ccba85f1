package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.config.Limit;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/** Flow control in the claim scripts (include/flow.lua): pauses, rate limits, concurrency caps; and resume.lua. */
class FlowControlScriptTest {
  private static final long TTL_MS = 30_000;

  private final RedisBroker plain = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(plain);
  private final Keys keys = plain.keys();
  private final UnifiedJedis redis = RedisFixture.get().redis();
  private final Inspector inspector = new Inspector(redis, keys);
  private final InvariantCheck invariant = new InvariantCheck(redis, keys);

  private void seed(String type, String id, String payload) {
    probe.seedReady(new NewJob(id, QueueProbe.head(type, 5), payload, probe.redisNowMs() - 1_000, true));
  }

  private static List<String> ids(Batch batch) {
    return batch.jobs().stream().map(Claimed::id).toList();
  }

  private void pause(String scope) {
    redis.hset(keys.paused(), scope, Long.toString(probe.redisNowMs()));
  }

  @Test
  void aPausedTypeIsHeldAtClaimWhileOtherTypesAreClaimedAndResumeGivesItBackOldestFirst() {
    seed("pay", "p1", "{}");
    seed("mail", "m1", "{}");
    seed("pay", "p2", "{}");
    seed("mail", "m2", "{}");
    pause("pay");

    assertEquals(List.of("m1", "m2"), ids(plain.claims().claimReady("c1", TTL_MS, 10, null)));
    assertEquals(List.of(), probe.readyIds());
    assertEquals(List.of("p2", "p1"), redis.lrange(keys.held("pay"), 0, -1), "oldest on the right");
    assertTrue(probe.record("p1").get("heldAt").asLong() > 0, "a pause marks the record: lateness apart");
    assertEquals(2, inspector.flow().held().get("pay"));
    assertEquals(List.of(), invariant.breaches(), "a held list is a place of its ids");

    Resumed r = plain.flow().resume("pay", 1000);
    assertTrue(r.wasPaused());
    assertEquals(2, r.givenBack());
    assertEquals(List.of("p1", "p2"), ids(plain.claims().claimReady("c2", TTL_MS, 10, null)));
    assertEquals(0, redis.scard(keys.heldIndex()));
  }

  @Test
  void aWholeQueuePauseHoldsTheBlockingClaimTooAndATypeStaysHeldWhileTheQueueIsPaused() {
    pause("*");
    seed("mail", "m1", "{}");
    Optional<Claimed> c = plain.claims().claim("c1", 0.5, TTL_MS);
    assertTrue(c.isEmpty(), "held, not claimed");
    assertEquals(List.of("m1"), redis.lrange(keys.held("mail"), 0, -1));
    assertEquals(List.of(), probe.inFlightIds("c1"));

    pause("mail");
    plain.flow().resume("*", 1000);
    assertEquals(List.of("m1"), redis.lrange(keys.held("mail"), 0, -1), "mail is still paused by itself");
    plain.flow().resume("mail", 1000);
    assertEquals(List.of("m1"), probe.readyIds());
  }

  @Test
  void overItsRateAJobGoesBackToDelayedDueWhenTheWindowLetsItInWithNoAttemptBurned() {
    RedisBroker limited = plain.withFlowLimits(List.of(new Limit("pay", "2/10s", null, 0)));
    for (int i = 1; i <= 5; i++) {
      seed("pay", "p" + i, "{}");
    }
    long now = probe.redisNowMs();
    List<String> claimed = new ArrayList<>();
    for (int i = 0; i < 10 && !probe.readyIds().isEmpty(); i++) {
      claimed.addAll(ids(limited.claims().claimReady("c1", TTL_MS, 10, null)));
    }
    assertEquals(List.of("p1", "p2"), claimed, "a limited job is claimed only as the first of a batch");
    assertEquals(List.of("p3", "p4", "p5"), probe.delayedIds());
    long due3 = probe.dueAt("p3");
    assertTrue(due3 >= now + 9_000 && due3 <= now + 11_000, "due when the window frees: " + (due3 - now));
    assertTrue(probe.dueAt("p4") >= due3 + 5_000, "deferred jobs are spread at the rate");
    assertEquals(1, probe.record("p3").get("attempt") == null ? 1 : probe.record("p3").get("attempt").asInt());
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void aRateKeyedByAPayloadFieldCountsEachValueApart() {
    RedisBroker limited = plain.withFlowLimits(List.of(new Limit("pay", "1/10s", "merchant", 0)));
    seed("pay", "a1", "{\"merchant\":\"a\"}");
    seed("pay", "a2", "{\"merchant\":\"a\"}");
    seed("pay", "b1", "{\"merchant\":7}");
    List<String> claimed = new ArrayList<>();
    for (int i = 0; i < 5 && !probe.readyIds().isEmpty(); i++) {
      claimed.addAll(ids(limited.claims().claimReady("c1", TTL_MS, 10, null)));
    }
    assertEquals(List.of("a1", "b1"), claimed);
    assertEquals(List.of("a2"), probe.delayedIds());
  }

  @Test
  void atItsCapAJobIsHeldAndTheSlotFreesWhenTheHoldersDeliveryLeavesItsList() {
    RedisBroker capped = plain.withFlowLimits(List.of(new Limit("stock", "", null, 2)));
    for (int i = 1; i <= 4; i++) {
      seed("stock", "s" + i, "{}");
    }
    Claimed first = capped.claims().claimReady("c1", TTL_MS, 10, null).jobs().get(0);
    assertEquals("s1", first.id());
    assertEquals(List.of("s2"), ids(capped.claims().claimReady("c2", TTL_MS, 10, null)));
    assertEquals(List.of(), ids(capped.claims().claimReady("c3", TTL_MS, 10, null)), "cap 2 reached: held");
    assertEquals(List.of("s4", "s3"), redis.lrange(keys.held("stock"), 0, -1));
    assertEquals(List.of(), invariant.breaches());

    // c1 finishes: its acknowledgement rides on its next claim, which then finds the slot free
    assertEquals(List.of("s3"), ids(capped.claims().claimReady("c1", TTL_MS, 10, first.delivery())));
    assertEquals(List.of(), ids(capped.claims().claimReady("c3", TTL_MS, 10, null)), "full again");

    // c2's worker dies: recovery takes its delivery back, and with it the slot
    capped.consumerRegistry().requeueInFlight("c2", RequeueMode.GONE, "worker died", 3);
    assertEquals(List.of("s2"), probe.readyIds());
    assertEquals(List.of("s4"), ids(capped.claims().claimReady("c3", TTL_MS, 10, null)), "the held job goes first");
    assertEquals(List.of(), ids(capped.claims().claimReady("c4", TTL_MS, 10, null)), "full again: s2 is held");
    assertEquals(List.of("s2"), redis.lrange(keys.held("stock"), 0, -1));
    assertEquals(2, redis.hlen(keys.capHolders("stock")));
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void aHandlersRateLimitedAnswerGoesBackToDelayedWithItsAttemptAndLastErrorKeptAndItsHoldMarkCleared() {
    seed("pay", "p1", "{}");
    pause("pay");
    plain.claims().claimReady("c1", TTL_MS, 10, null);
    plain.flow().resume("pay", 1000);
    Claimed c = plain.claims().claimReady("c1", TTL_MS, 10, null).jobs().get(0);
    assertTrue(probe.record("p1").get("heldAt").asLong() > 0);
    plain.outcomes().retry("c1", c.delivery(), 0, "boom");
    probe.awaitRedisTimePast(probe.dueAt("p1"));
    plain.scheduling().moveDueToReady(100);
    Claimed again = plain.claims().claimReady("c1", TTL_MS, 10, null).jobs().get(0);
    long now = probe.redisNowMs();

    assertEquals(Moved.MOVED, plain.outcomes().waitRateLimited("c1", again.delivery(), 3_000));

    assertEquals(List.of("p1"), probe.delayedIds());
    assertTrue(probe.dueAt("p1") >= now + 3_000);
    assertEquals(2, probe.record("p1").get("attempt").asInt(), "the retry's attempt, no more");
    assertEquals("boom", probe.record("p1").get("lastError").asText());
    assertTrue(probe.record("p1").get("heldAt") == null, "a new due time: lateness counts as usual again");
  }

  @Test
  void withNothingLimitedOrPausedNoFlowKeyIsWritten() {
    seed("pay", "p1", "{}");
    assertEquals(List.of("p1"), ids(plain.claims().claimReady("c1", TTL_MS, 10, null)));
    assertEquals(0, redis.exists(keys.paused()) ? 1 : 0);
    assertEquals(0, redis.exists(keys.heldIndex()) ? 1 : 0);
  }
}
