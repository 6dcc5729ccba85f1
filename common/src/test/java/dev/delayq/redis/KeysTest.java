package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Keys}: every key of a queue shares its hash tag, so one queue is one cluster slot. */
class KeysTest {
  private final Keys keys = new Keys("tenant-a", "orders");

  @Test
  void everyKeyIsPrefixColonHashTaggedQueueColonSuffix() {
    assertEquals(List.of("tenant-a:{orders}:delayed", "tenant-a:{orders}:jobs", "tenant-a:{orders}:ready",
            "tenant-a:{orders}:inflight:w1/3", "tenant-a:{orders}:inflight:*", "tenant-a:{orders}:consumers",
            "tenant-a:{orders}:dead", "tenant-a:{orders}:wake", "tenant-a:{orders}:leader"),
        List.of(keys.delayed(), keys.jobs(), keys.ready(), keys.inFlight("w1/3"), keys.inFlightPattern(),
            keys.consumers(), keys.dead(), keys.wake(), keys.leader()));
  }

  @Test
  void emptyPrefixOrQueueIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new Keys("", "orders"));
    assertThrows(IllegalArgumentException.class, () -> new Keys("delayq", ""));
    assertThrows(IllegalArgumentException.class, () -> new Keys(null, "orders"));
  }
}
