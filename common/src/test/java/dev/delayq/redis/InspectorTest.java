package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link Inspector}: depths, on a healthy queue and on an empty one. */
class InspectorTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final Inspector inspector = new Inspector(RedisFixture.get().redis(), keys);

  /** One job in every place: two delayed, one ready, one in flight, one dead. */
  @BeforeEach
  void seedAHealthyQueue() {
    probe.seedDead("c0", "dead-1", "boom");
    probe.seedInFlight("c1", "running-1");
    probe.seedReady("ready-1");
    probe.seedDelayed("delayed-1", 60_000);
    probe.seedDelayed("delayed-2", 120_000);
  }

  @Test
  void depthsCountEachPlaceAndTheRecords() {
    assertEquals(new Inspector.Depths(2, 1, 1, 1, 5), inspector.depths());
  }

  @Test
  void emptyQueueHasZeroDepths() {
    Inspector empty = new Inspector(RedisFixture.get().redis(), RedisFixture.freshKeys());

    assertEquals(new Inspector.Depths(0, 0, 0, 0, 0), empty.depths());
  }

  @Test
  void depthsReadTheConsumerRegistryAndNeverScanTheKeyspace() {
    Keys other = RedisFixture.freshKeys();
    QueueProbe two = new QueueProbe(RedisFixture.get().broker(other));
    two.seedInFlight("c1", "running-1");
    two.seedInFlight("c2", "running-2");
    long scansBefore = scanCalls();

    Inspector.Depths d = new Inspector(RedisFixture.get().redis(), other).depths();

    assertEquals(2, d.inFlight(), "both registered consumers' lists");
    assertEquals(scansBefore, scanCalls(), "no SCAN was sent");
  }

  private long scanCalls() {
    String stats = ServerCheck.info(RedisFixture.get().redis(), "commandstats").getOrDefault("cmdstat_scan", "calls=0,");
    return Long.parseLong(stats.substring(stats.indexOf("calls=") + 6, stats.indexOf(',')));
  }

}
