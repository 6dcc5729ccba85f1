package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** releaseClaimed.lua through {@link RedisBroker#releaseClaimed}. */
class ReleaseClaimedScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  @Test
  void unstartedJobsGoBackToReadyToRunNextWithTheirRecordsUntouched() {
    probe.seedInFlight("c1", "a");
    probe.seedInFlight("c1", "b");
    probe.seedReady("waiting");
    String recordBefore = probe.record("a").toString();

    assertEquals(2, broker.releaseClaimed("c1", List.of("a", "b")));

    assertEquals(List.of(), probe.inFlightIds("c1"));
    assertEquals(List.of("ready"), probe.placesOf("a"));
    assertEquals(List.of("ready"), probe.placesOf("b"));
    assertEquals(recordBefore, probe.record("a").toString(), "no attempt, no lost delivery counted");
    assertEquals("a", broker.claimReady("c2", 30_000, 1).get(0).id(), "the first claimed runs next");
  }

  @Test
  void idsNoLongerInTheConsumersListAreSkipped() {
    probe.seedInFlight("c1", "mine");
    probe.seedInFlight("c2", "theirs");

    assertEquals(1, broker.releaseClaimed("c1", List.of("mine", "theirs", "unknown")));

    assertEquals(List.of("inflight:c2"), probe.placesOf("theirs"));
    assertEquals(List.of("ready"), probe.placesOf("mine"));
  }
}
