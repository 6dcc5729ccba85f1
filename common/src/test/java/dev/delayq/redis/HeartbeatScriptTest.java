package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** heartbeat.lua through {@link RedisBroker#heartbeat}, and what the recoverer reads of it. */
class HeartbeatScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  @Test
  void heartbeatSetsEachConsumersExpiryToRedisNowPlusTtl() {
    long before = probe.redisNowMs();
    broker.consumerRegistry().heartbeat(List.of("w1/0", "w1/1"), 30_000);
    long after = probe.redisNowMs();

    for (String consumer : List.of("w1/0", "w1/1")) {
      long expiry = probe.consumerExpiry(consumer);
      assertTrue(expiry >= before + 30_000 && expiry <= after + 30_000, consumer + " expires " + expiry);
    }
    assertEquals(List.of("w1/0", "w1/1"), broker.consumerRegistry().consumers());
  }

  @Test
  void heartbeatKeepsASilentConsumerFromBeingRecovered() {
    probe.seedReady("j1");
    broker.claims().claim("c1", 1.0, 1);
    probe.awaitRedisTimePast(probe.consumerExpiry("c1"));
    assertEquals(List.of("c1"), broker.consumerRegistry().expiredConsumers(probe.redisNowMs(), 100));

    broker.consumerRegistry().heartbeat(List.of("c1"), 30_000);

    assertEquals(List.of(), broker.consumerRegistry().expiredConsumers(probe.redisNowMs(), 100));
    assertTrue(broker.consumerRegistry().requeueInFlight("c1", RequeueMode.EXPIRED, "expired", 3).consumerAlive());
    assertEquals(List.of("inflight:c1"), probe.placesOf("j1"));
  }

  @Test
  void expiredConsumersListsOnlyThoseWhoseExpiryHasPassed() {
    broker.consumerRegistry().heartbeat(List.of("alive"), 60_000);
    broker.consumerRegistry().heartbeat(List.of("silent"), 1);
    long silentExpiry = probe.consumerExpiry("silent");
    probe.awaitRedisTimePast(silentExpiry);

    assertEquals(List.of("silent"), broker.consumerRegistry().expiredConsumers(probe.redisNowMs(), 100));
  }

  @Test
  void heartbeatOfNoConsumersChangesNothing() {
    broker.consumerRegistry().heartbeat(List.of(), 30_000);

    assertEquals(List.of(), broker.consumerRegistry().consumers());
  }
}
