package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** retryDead.lua through {@link Admin#retryDead} and {@link Admin#retryAllDead}. */
class RetryDeadScriptTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final Admin admin = new Admin(RedisFixture.get().redis(), keys, 3);

  @Test
  void deadJobGoesToReadyWithAttemptsAfreshAndItsErrorKept() {
    Delivery d = probe.seedInFlight("c1", QueueProbe.delayed("j1", MoveToDelayedScriptTest.TRICKY_PAYLOAD, 0));
    broker.outcomes().deadLetter("c1", d, "boom");
    long before = probe.redisNowMs();

    assertTrue(admin.retryDead("j1"));

    assertEquals(List.of("ready"), probe.placesOf("j1"));
    JsonNode record = probe.record("j1");
    assertEquals(1, record.get("attempt").asInt());
    assertEquals(0, record.get("lost").asInt());
    assertEquals("boom", record.get("previousError").asText());
    assertFalse(record.has("lastError"));
    assertFalse(record.has("deadAt"));
    assertTrue(record.get("dueAt").asLong() >= before);
    assertTrue(probe.rawRecord("j1").endsWith(",\"p\":" + MoveToDelayedScriptTest.TRICKY_PAYLOAD + "}"));
  }

  @Test
  void retriedJobQueuesBehindTheJobsAlreadyReady() {
    probe.seedDead("c1", "j1", "boom");
    probe.seedReady("waiting");

    assertTrue(admin.retryDead("j1"));

    // consumers take from the right: "waiting" runs first
    assertEquals(List.of("j1", "waiting"), probe.readyIds());
  }

  @Test
  void jobThatIsNotDeadIsLeftAlone() {
    probe.seedDelayed("j1", 60_000);
    String record = probe.rawRecord("j1");

    assertFalse(admin.retryDead("j1"));
    assertFalse(admin.retryDead("never-enqueued"));

    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"));
    assertEquals(List.of(), probe.readyIds());
  }

  @Test
  void deadIdWithoutARecordIsDroppedNotRun() {
    RedisFixture.get().redis().zadd(keys.dead(), 1, "ghost");

    assertFalse(admin.retryDead("ghost"));

    assertEquals(List.of(), probe.placesOf("ghost"));
  }

  @Test
  void unreadableDeadRecordStaysDeadWithAClearError() {
    RedisFixture.get().redis().hset(keys.jobs(), "bad", "{not json");
    RedisFixture.get().redis().zadd(keys.dead(), 1, "bad");

    IllegalStateException e = assertThrows(IllegalStateException.class, () -> admin.retryDead("bad"));

    assertTrue(e.getMessage().contains("unreadable record"), e.getMessage());
    assertEquals(List.of("dead"), probe.placesOf("bad"));
    assertEquals("{not json", probe.rawRecord("bad"));
  }

  @Test
  void deadRecordThatCannotBeWrittenBackStaysDeadAndTheOthersOfTheBatchStillGo() {
    String unencodable = "{\"type\":\"t\",\"attempt\":1,\"maxAttempts\":1e999,\"payload\":{}}";
    RedisFixture.get().redis().hset(keys.jobs(), "bad", unencodable);
    RedisFixture.get().redis().zadd(keys.dead(), 1, "bad");
    probe.seedDead("c1", "good", "boom");

    assertEquals(1, admin.retryAllDead());

    assertEquals(List.of("dead"), probe.placesOf("bad"));
    assertEquals(unencodable, probe.rawRecord("bad"));
    assertEquals(List.of("ready"), probe.placesOf("good"));
  }

  @Test
  void retryAllMovesEveryReadableDeadJobAcrossSeveralBatches() {
    int n = Admin.BATCH + 5;
    for (int i = 0; i < n; i++) {
      RedisFixture.get().redis().hset(keys.jobs(), "d" + i, "{\"type\":\"t\",\"maxAttempts\":2,\"attempt\":2,\"lastError\":\"x\",\"payload\":{}}");
      RedisFixture.get().redis().zadd(keys.dead(), i, "d" + i);
    }
    RedisFixture.get().redis().hset(keys.jobs(), "bad", "{\"type\":\"?\",\"malformed\":\"{oops\",\"lastError\":\"e\"}");
    RedisFixture.get().redis().zadd(keys.dead(), 0, "bad");

    assertEquals(n, admin.retryAllDead());

    assertEquals(List.of("bad"), probe.deadIds());
    assertEquals(n, probe.readyIds().size());
    assertNull(RedisFixture.get().redis().zscore(keys.dead(), "d0"));
  }
}
