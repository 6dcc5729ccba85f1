package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** purgeDead.lua through {@link Admin#purgeDead}. */
class PurgeDeadScriptTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final Admin admin = new Admin(RedisFixture.get().redis(), keys, 3);

  private void seedDeadAt(String id, long deadAtMs) {
    RedisFixture.get().redis().hset(keys.jobs(), id, "{\"type\":\"t\",\"payload\":{}}");
    RedisFixture.get().redis().zadd(keys.dead(), deadAtMs, id);
  }

  @Test
  void onlyJobsDeadLongEnoughGoWithTheirRecords() {
    long now = probe.redisNowMs();
    seedDeadAt("old", now - 3_600_000);
    seedDeadAt("recent", now - 1_000);
    probe.seedDelayed("alive", 60_000);

    assertEquals(1, admin.purgeDead(Duration.ofMinutes(30)));

    assertEquals(List.of("recent"), probe.deadIds());
    assertNull(probe.rawRecord("old"));
    assertEquals(List.of("delayed"), probe.placesOf("alive"));
    assertEquals(2, probe.recordCount());
  }

  @Test
  void withoutAnAgeEveryDeadJobGoesAcrossSeveralBatches() {
    int n = Admin.BATCH * 2 + 3;
    for (int i = 0; i < n; i++) {
      seedDeadAt("d" + i, i);
    }
    probe.seedReady("alive");

    assertEquals(n, admin.purgeDead(null));

    assertEquals(List.of(), probe.deadIds());
    assertEquals(1, probe.recordCount());
    assertEquals(List.of("ready"), probe.placesOf("alive"));
  }

  @Test
  void emptyDeadSetPurgesNothing() {
    assertEquals(0, admin.purgeDead(null));
    assertEquals(0, admin.purgeDead(Duration.ofDays(1)));
  }

  @Test
  void negativeAgeIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> admin.purgeDead(Duration.ofSeconds(-1)));
  }
}
