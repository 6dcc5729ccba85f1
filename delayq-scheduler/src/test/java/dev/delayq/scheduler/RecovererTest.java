package dev.delayq.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Recoverer} on a real Redis. */
class RecovererTest {
  private static final int POISON_AT = 3;

  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final Recoverer recoverer = new Recoverer(broker, POISON_AT);

  /** Lets the consumer's heartbeat lapse: it last beat with a 1 ms TTL. */
  private void expire(String consumer) {
    broker.consumerRegistry().heartbeat(List.of(consumer), 1);
    probe.awaitRedisTimePast(probe.consumerExpiry(consumer));
  }

  @Test
  void expiredConsumerJobsReturnToReadyAndOnlyTheRunningOneCountsAnAttempt() {
    probe.seedReady("running");
    probe.seedReady("prefetched");
    broker.claims().claimReady("silent", 30_000, 2, null); // "running" is marked: its handler started
    expire("silent");

    int taken = recoverer.tick(probe.redisNowMs());

    assertEquals(2, taken);
    assertEquals(List.of("prefetched", "running"), probe.readyIds());
    assertEquals(2, probe.record("running").get("attempt").asInt());
    assertTrue(probe.record("running").get("lastError").asText().contains("heartbeat of consumer silent expired"),
        probe.rawRecord("running"));
    assertEquals(1, probe.record("prefetched").get("attempt").asInt());
    assertNull(probe.consumerExpiry("silent"), "an emptied consumer is unregistered, so a late ack is fenced");
  }

  @Test
  void liveConsumerKeepsItsJobs() {
    probe.seedInFlight("alive", "j1");
    String record = probe.rawRecord("j1");

    int taken = recoverer.tick(probe.redisNowMs());

    assertEquals(0, taken);
    assertEquals(List.of("inflight:alive"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"));
  }

  @Test
  void consumerThatBeatAgainSinceTheScanKeepsItsJobs() {
    probe.seedInFlight("back", "j1");
    long expiry = probe.consumerExpiry("back");

    // a redisNow past its expiry lists it as expired; the script re-checks against Redis TIME
    int taken = recoverer.tick(expiry + 1);

    assertEquals(0, taken);
    assertEquals(List.of("inflight:back"), probe.placesOf("j1"));
    assertNotNull(probe.consumerExpiry("back"));
  }

  @Test
  void onlyExpiredConsumersLoseTheirJobs() {
    probe.seedInFlight("silent", "lost");
    probe.seedInFlight("alive", "kept");
    expire("silent");

    recoverer.tick(probe.redisNowMs());

    assertEquals(List.of("ready"), probe.placesOf("lost"));
    assertEquals(List.of("inflight:alive"), probe.placesOf("kept"));
  }

  @Test
  void unregisteredConsumerListIsTakenBackOnlyOnTheSecondSweepThatSeesIt() {
    probe.seedReady("j1");
    broker.claims().claim("orphaned", 1.0, 30_000).orElseThrow();
    RedisFixture.get().redis().zrem(broker.keys().consumers(), "orphaned"); // died between claim and register

    assertEquals(0, recoverer.sweepUnregistered());
    assertEquals(List.of("inflight:orphaned"), probe.placesOf("j1"), "one sighting is not enough");

    assertEquals(1, recoverer.sweepUnregistered());
    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(2, probe.record("j1").get("attempt").asInt());
  }

  @Test
  void consumerThatRegistersBetweenSweepsKeepsItsJobs() {
    probe.seedReady("j1");
    broker.claims().claim("slow", 1.0, 30_000).orElseThrow();
    RedisFixture.get().redis().zrem(broker.keys().consumers(), "slow");

    assertEquals(0, recoverer.sweepUnregistered());
    broker.consumerRegistry().heartbeat(List.of("slow"), 30_000);
    assertEquals(0, recoverer.sweepUnregistered());

    assertEquals(List.of("inflight:slow"), probe.placesOf("j1"));
  }
}
