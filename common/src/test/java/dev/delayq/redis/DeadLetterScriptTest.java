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
    Delivery d = probe.seedInFlight("c1", delayed("j1", MoveToDelayedScriptTest.TRICKY_PAYLOAD, 0));
    JsonNode before = probe.record("j1");

    long t0 = probe.redisNowMs();
    assertTrue(broker.outcomes().deadLetter("c1", d, "attempts exhausted: boom"));
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
    assertTrue(probe.rawRecord("j1").endsWith(",\"p\":" + MoveToDelayedScriptTest.TRICKY_PAYLOAD + "}"));
    assertEquals(List.of(), probe.inFlightIds("c1"));
  }

  @Test
  void malformedRecordIsKeptVerbatimUnderMalformed() {
    Delivery d = probe.seedInFlight("c1", "j1");
    String garbage = "{\"type\":\"x\",\"payload\":{\"unterminated\":";
    RedisFixture.get().redis().hset(broker.keys().jobs(), "j1", garbage);

    assertTrue(broker.outcomes().deadLetter("c1", d, "record is not JSON"));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    JsonNode r = probe.record("j1");
    assertEquals(garbage, r.get("malformed").asText());
    assertEquals("record is not JSON", r.get("lastError").asText());
    assertEquals(probe.deadAt("j1"), r.get("deadAt").asLong());
  }

  @Test
  void recordThatIsNotJsonAtAllIsKeptVerbatimToo() {
    Delivery d = probe.seedInFlight("c1", "j1");
    RedisFixture.get().redis().hset(broker.keys().jobs(), "j1", "not json ✗");

    assertTrue(broker.outcomes().deadLetter("c1", d, "unreadable"));

    assertEquals("not json ✗", probe.record("j1").get("malformed").asText());
    assertEquals(List.of("dead"), probe.placesOf("j1"));
  }

  @Test
  void recordThatCannotBeWrittenBackGoesToDeadKeptVerbatimWithTheReason() {
    Delivery d = probe.seedInFlight("c1", "j1");
    String unencodable = "{\"type\":\"x\",\"attempt\":1,\"maxAttempts\":1e999,\"payload\":{}}";
    RedisFixture.get().redis().hset(broker.keys().jobs(), "j1", unencodable);

    assertTrue(broker.outcomes().deadLetter("c1", d, "malformed record: maxAttempts out of range"));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    JsonNode r = probe.record("j1");
    assertEquals(unencodable, r.get("malformed").asText());
    String error = r.get("lastError").asText();
    assertTrue(error.startsWith("malformed record: maxAttempts out of range (the record cannot be written back: "),
        error);
  }

  @Test
  void deadLetterIsFencedWhenTheDeliveryIsNotInTheConsumersList() {
    Delivery d = probe.seedInFlight("c1", "j1");
    String record = probe.rawRecord("j1");

    assertFalse(broker.outcomes().deadLetter("c2", d, "boom"));
    assertFalse(broker.outcomes().deadLetter("c1", new Delivery(d.token() + 1, "j1"), "boom"), "an old or other delivery");

    assertEquals(List.of("inflight:c1"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"));
    assertEquals(List.of(), probe.deadIds());
  }
}
