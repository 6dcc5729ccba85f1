package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.delayed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** moveToDelayed.lua through {@link RedisBroker#retry} and {@link RedisBroker#reschedule}. */
class MoveToDelayedScriptTest {
  /** A 20-digit number cjson would round, non-ASCII text, and the script's split marker in a string. */
  static final String TRICKY_PAYLOAD = "{\"big\":12345678901234567890,\"text\":\"zß 日本 ✓ \uD83D\uDE80\","
      + "\"marker\":\",\\\"payload\\\":\",\"f\":1.50,\"e\":-2E+3,\"huge\":1E+400,\"nested\":{\"payload\":[true,null]}}";

  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  /** Puts a retried job back in the consumer's hands: forward it once due, then claim it. */
  private Delivery claimAgain(String consumer, String id) {
    probe.awaitRedisTimePast(probe.dueAt(id));
    assertEquals(1, broker.scheduling().moveDueToReady(1000).moved());
    Claimed c = broker.claims().claim(consumer, 1.0, 30_000).orElseThrow();
    assertEquals(id, c.id());
    return c.delivery();
  }

  @Test
  void retryIncrementsAttemptAndRecordsTheErrorAndDueTime() {
    Delivery d = probe.seedInFlight("c1", "j1");
    JsonNode before = probe.record("j1");

    long t0 = probe.redisNowMs();
    assertEquals(Moved.MOVED, broker.outcomes().retry("c1", d, 5_000, "boom"));
    long t1 = probe.redisNowMs();

    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    JsonNode after = probe.record("j1");
    assertEquals(2, after.get("attempt").asInt());
    assertEquals("boom", after.get("lastError").asText());
    long dueAt = after.get("dueAt").asLong();
    assertEquals(dueAt, probe.dueAt("j1"));
    assertTrue(dueAt >= t0 + 5_000 && dueAt <= t1 + 5_000, "due at Redis now + delay");
    assertEquals(before.get("createdAt"), after.get("createdAt"));
    assertEquals(before.get("type"), after.get("type"));
    assertEquals(before.get("maxAttempts"), after.get("maxAttempts"));
    assertEquals(List.of(), probe.inFlightIds("c1"));
    assertEquals(List.of(), probe.readyIds());
  }

  @Test
  void retryKeepsThePayloadByteForByte() throws Exception {
    Delivery d = probe.seedInFlight("c1", delayed("j1", TRICKY_PAYLOAD, 0));
    String tail = ",\"p\":" + TRICKY_PAYLOAD + "}";
    assertTrue(probe.rawRecord("j1").endsWith(tail));

    String error = "IllegalStateException: \"quoted\" ,\"payload\": a/b ✗";
    assertEquals(Moved.MOVED, broker.outcomes().retry("c1", d, 0, error));
    assertTrue(probe.rawRecord("j1").endsWith(tail), probe.rawRecord("j1"));
    assertEquals(error, probe.record("j1").get("lastError").asText());

    Delivery again = claimAgain("c1", "j1");
    assertEquals(Moved.MOVED, broker.outcomes().retry("c1", again, 0, "again"));

    String raw = probe.rawRecord("j1");
    assertTrue(raw.endsWith(tail), raw);
    JobRecord parsed = JobRecord.parse("j1", raw);
    assertEquals(3, parsed.attempt());
    assertEquals("again", parsed.lastError());
    assertEquals("12345678901234567890", probe.record("j1").get("payload").get("big").bigIntegerValue().toString());
  }

  @Test
  void rescheduleResetsAttemptAndClearsLastError() {
    Delivery d = probe.seedInFlight("c1", "j1");
    broker.outcomes().retry("c1", d, 0, "boom");
    Delivery again = claimAgain("c1", "j1");
    assertEquals(2, probe.record("j1").get("attempt").asInt());

    long t0 = probe.redisNowMs();
    assertEquals(Moved.MOVED, broker.outcomes().reschedule("c1", again, 30_000));

    JsonNode r = probe.record("j1");
    assertEquals(1, r.get("attempt").asInt());
    assertFalse(r.has("lastError"), "lastError cleared: " + r);
    assertEquals(2, r.get("runs").asInt());
    assertTrue(r.get("dueAt").asLong() >= t0 + 30_000);
    assertEquals(r.get("dueAt").asLong(), probe.dueAt("j1"));
    assertEquals(List.of("delayed"), probe.placesOf("j1"));
  }

  @Test
  void rescheduleKeepsThePayloadByteForByte() {
    Delivery d = probe.seedInFlight("c1", delayed("j1", TRICKY_PAYLOAD, 0));

    broker.outcomes().reschedule("c1", d, 1_000);

    assertTrue(probe.rawRecord("j1").endsWith(",\"p\":" + TRICKY_PAYLOAD + "}"));
  }

  @Test
  void retryIsFencedWhenTheDeliveryIsNotInTheConsumersList() {
    Delivery d = probe.seedInFlight("c1", "j1");
    String record = probe.rawRecord("j1");

    assertEquals(Moved.FENCED, broker.outcomes().retry("c2", d, 1_000, "boom"));
    assertEquals(Moved.FENCED, broker.outcomes().reschedule("c2", d, 1_000));
    assertEquals(Moved.FENCED, broker.outcomes().retry("c1", new Delivery(d.token() + 1, "j1"), 1_000, "old"));

    assertEquals(List.of("inflight:c1"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"));
    assertEquals(0, probe.wakeTokens());
  }

  @Test
  void staleRetryAfterATakeBackDoesNotTouchTheFreshClaimOfTheSameId() {
    Delivery stale = probe.seedInFlight("c1", "j1");
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE,
        "heartbeat expired", 3);
    Delivery fresh = broker.claims().claim("c1", 1.0, 30_000).orElseThrow().delivery();
    String record = probe.rawRecord("j1");

    assertEquals(Moved.FENCED, broker.outcomes().retry("c1", stale, 0, "from the old delivery"));

    assertEquals(List.of(fresh.element()), probe.inFlightElements("c1"));
    assertEquals(record, probe.rawRecord("j1"));
  }

  @Test
  void unreadableRecordGoesToDeadInTheSameStepKeptVerbatim() {
    Delivery d = probe.seedInFlight("c1", "j1");
    RedisFixture.get().redis().hset(broker.keys().jobs(), "j1", "{\"type\":\"x\" garbage");

    assertEquals(Moved.DEAD, broker.outcomes().retry("c1", d, 1_000, "boom"));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    assertEquals("{\"type\":\"x\" garbage", probe.record("j1").get("malformed").asText());
    assertTrue(probe.record("j1").get("lastError").asText().startsWith("malformed record: cannot retry it"));
  }

  @Test
  void recordThatCannotBeWrittenBackGoesToDeadInTheSameStepWithTheReason() {
    Delivery d = probe.seedInFlight("c1", "j1");
    String unencodable = "{\"type\":\"x\",\"attempt\":1,\"maxAttempts\":1e999,\"payload\":{}}";
    RedisFixture.get().redis().hset(broker.keys().jobs(), "j1", unencodable);

    assertEquals(Moved.DEAD, broker.outcomes().retry("c1", d, 1_000, "attempt 1: boom"));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    JsonNode r = probe.record("j1");
    assertEquals(unencodable, r.get("malformed").asText());
    String error = r.get("lastError").asText();
    assertTrue(error.contains("the record cannot be written back: Cannot serialise number")
        && error.endsWith("attempt 1: boom"), error);
    assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), broker.keys()).breaches());
  }

  @Test
  void retryThatBecomesTheHeadWakesTheScheduler() {
    Delivery d = probe.seedInFlight("c1", "j1");

    broker.outcomes().retry("c1", d, 60_000, "boom");

    assertEquals(1, probe.wakeTokens());
  }

  @Test
  void retryBehindAnEarlierDelayedJobDoesNotWakeTheScheduler() {
    Delivery d = probe.seedInFlight("c1", "j1");
    probe.seedDelayed("earlier", 10_000);
    assertTrue(broker.scheduling().awaitWake(1.0));

    broker.outcomes().retry("c1", d, 60_000, "boom");

    assertEquals(0, probe.wakeTokens());
    assertEquals(List.of("earlier", "j1"), probe.delayedIds());
  }
}
