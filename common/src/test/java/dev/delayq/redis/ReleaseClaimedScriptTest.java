package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.args.ListDirection;

/** releaseClaimed.lua through {@link RedisBroker#releaseClaimed}. */
class ReleaseClaimedScriptTest {
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
  void finishedJobIsAcknowledgedAndTheUnstartedOnesGoBackToRunNextInClaimOrder() {
    List<Delivery> d = claim("c1", "done", "a", "b");
    probe.seedReady("waiting");
    String recordBefore = probe.rawRecord("a");

    assertEquals(new Released(Ack.ACKED, 2), broker.acks().releaseClaimed("c1", d.get(0)));

    assertNull(probe.rawRecord("done"));
    assertEquals(List.of(), probe.inFlightIds("c1"));
    assertEquals(List.of("waiting", "b", "a"), probe.readyIds(), "a, the first claimed, runs next");
    assertEquals(recordBefore, probe.rawRecord("a"), "no attempt, no lost delivery counted");
    assertFalse(probe.record("b").has("lost"));
  }

  @Test
  void withNothingToAcknowledgeEverythingGoesBack() {
    claim("c1", "a", "b");

    assertEquals(new Released(Ack.NONE, 2), broker.acks().releaseClaimed("c1", null));

    assertEquals(List.of("b", "a"), probe.readyIds());
    assertEquals(2, probe.recordCount());
  }

  @Test
  void aBareIdBlmoveLeftGoesBackToo() {
    probe.seedReady("j1");
    RedisFixture.get().redis().lmove(broker.keys().ready(), broker.keys().inFlight("c1"), ListDirection.RIGHT, ListDirection.LEFT);

    assertEquals(1, broker.acks().releaseClaimed("c1", null).released());

    assertEquals(List.of("ready"), probe.placesOf("j1"));
  }

  @Test
  void otherConsumersAreNotTouched() {
    claim("c1", "mine");
    claim("c2", "theirs");

    assertEquals(1, broker.acks().releaseClaimed("c1", null).released());

    assertEquals(List.of("inflight:c2"), probe.placesOf("theirs"));
    assertEquals(List.of("ready"), probe.placesOf("mine"));
  }
}
