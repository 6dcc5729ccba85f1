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

/** deadLetter.lua through {@link RedisBroker#deadLetter}. */
class DeadLetterScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  @Test
  void deadLetteredJobKeepsItsRecordWithLastErrorAndDeadAt() {
    probe.seedInFlight("c1", delayed("j1", MoveToDelayedScriptTest.TRICKY_PAYLOAD, 0));
    JsonNode before = probe.record("j1");

    long t0 = probe.redisNowMs();
    assertTrue(broker.deadLetter("c1", "j1", "attempts exhausted: boom"));
    long t1 = probe.redisNowMs();

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    JsonNode after = probe.record("j1");
    assertEquals("attempts exhausted: boom", after.get("lastError").asText());
    long deadAt = after.get("deadAt").asLong();
    assertTrue(deadAt >= t0 && deadAt <= t1, "deadAt from Redis TIME");
    assertEquals(deadAt, probe.deadAt("j1"));
    assertEquals(before.get("attempt"), after.get("attempt"));
    assertEquals(before.get("dueAt"), after.get("dueAt"));
    assertEquals(before.get("createdAt"), after.get("createdAt"));
    assertTrue(probe.rawRecord("j1").endsWith(",\"payload\":" + MoveToDelayedScriptTest.TRICKY_PAYLOAD + "}"));
    assertEquals(List.of(), probe.inFlightIds("c1"));
  }

  @Test
  void malformedRecordIsKeptVerbatimUnderMalformed() {
    probe.seedInFlight("c1", "j1");
    String garbage = "{\"type\":\"x\",\"payload\":{\"unterminated\":";
    broker.redis().hset(broker.keys().jobs(), "j1", garbage);

    assertTrue(broker.deadLetter("c1", "j1", "record is not JSON"));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    JsonNode r = probe.record("j1");
    assertEquals(garbage, r.get("malformed").asText());
    assertEquals("record is not JSON", r.get("lastError").asText());
    assertEquals(probe.deadAt("j1"), r.get("deadAt").asLong());
  }

  @Test
  void recordThatIsNotJsonAtAllIsKeptVerbatimToo() {
    probe.seedInFlight("c1", "j1");
    broker.redis().hset(broker.keys().jobs(), "j1", "not json ✗");

    assertTrue(broker.deadLetter("c1", "j1", "unreadable"));

    assertEquals("not json ✗", probe.record("j1").get("malformed").asText());
    assertEquals(List.of("dead"), probe.placesOf("j1"));
  }

  @Test
  void deadLetterIsFencedWhenTheIdIsNotInTheConsumersList() {
    probe.seedInFlight("c1", "j1");
    String record = probe.rawRecord("j1");

    assertFalse(broker.deadLetter("c2", "j1", "boom"));

    assertEquals(List.of("inflight:c1"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"));
    assertEquals(List.of(), probe.deadIds());
  }
}
