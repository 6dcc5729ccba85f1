package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** handOffUnstarted.lua through {@link RedisBroker#handOffUnstarted}. */
class HandOffUnstartedScriptTest {
  private static final long TTL_MS = 30_000;

  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  private List<Claimed> claimFour() {
    for (int i = 1; i <= 5; i++) {
      probe.seedReady("job-" + i);
    }
    return broker.claims().claimReady("c1", TTL_MS, 4, null).jobs();
  }

  @Test
  void theJobsBehindTheRunningOneGoBackToReadyToRunNextInClaimOrder() {
    List<Claimed> batch = claimFour();

    int n = broker.acks().handOffUnstarted("c1", batch.subList(1, 4).stream().map(Claimed::delivery).toList());

    assertEquals(3, n);
    assertEquals(List.of("job-1"), probe.inFlightIds("c1"), "the running one stays");
    assertEquals(List.of("job-5", "job-4", "job-3", "job-2"), probe.readyIds(), "job-2 at the right end: next");
    for (String id : List.of("job-2", "job-3", "job-4")) {
      assertEquals(List.of("ready"), probe.placesOf(id), id + " is in exactly one place");
    }
    assertEquals(5, probe.recordCount(), "records untouched");
    assertEquals(List.of("job-2"), broker.claims().claimReady("c2", TTL_MS, 1, null).jobs().stream()
        .map(Claimed::id).toList());
  }

  @Test
  void aDeliveryNoLongerInTheListIsPassedOver() {
    List<Claimed> batch = claimFour();
    List<Delivery> rest = batch.subList(1, 4).stream().map(Claimed::delivery).toList();
    broker.acks().handOffUnstarted("c1", rest);

    assertEquals(0, broker.acks().handOffUnstarted("c1", rest), "already given back: nothing twice");
    assertEquals(List.of("job-5", "job-4", "job-3", "job-2"), probe.readyIds());
  }
}
