package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A live queue upgrading in place: records an older producer wrote with full names are read by
 * the scripts and by workers, and the first script that changes one writes it compact, with the
 * same job in it.
 */
class RecordUpgradeTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  private Delivery forwardAndClaim(String id) {
    probe.awaitRedisTimePast(probe.dueAt(id));
    assertEquals(1, broker.scheduling().moveDueToReady(1000).moved());
    Claimed c = broker.claims().claim("c1", 1.0, 30_000).orElseThrow();
    assertEquals(id, c.id());
    return c.delivery();
  }

  @Test
  void aFullNamesRecordIsReadAndARetryRewritesItCompactKeepingTheJob() throws Exception {
    String head = QueueProbe.fullNamesHead("order_close", 4)
        + ",\"keepId\":true,\"headers\":{\"tenant\":\"acme\",\"p\":\"not the payload\"}";
    broker.enqueue(new NewJob("j1", head, MoveToDelayedScriptTest.TRICKY_PAYLOAD, 1, false));
    String old = probe.rawRecord("j1");
    assertTrue(old.startsWith("{\"type\":\"order_close\""), old);
    JobRecord before = JobRecord.parse("j1", old);

    Delivery d = forwardAndClaim("j1");
    assertEquals(Moved.MOVED, broker.outcomes().retry("c1", d, 0, "boom"));

    String raw = probe.rawRecord("j1");
    assertTrue(raw.startsWith("{\"t\":\"order_close\",\"m\":4,\"a\":2,\"c\":" + before.createdAt() + ",\"d\":"), raw);
    assertTrue(raw.contains(",\"k\":1,\"h\":[\"p\",\"not the payload\",\"tenant\",\"acme\"]"), raw);
    assertTrue(raw.endsWith(",\"p\":" + MoveToDelayedScriptTest.TRICKY_PAYLOAD + "}"), raw);
    JobRecord after = JobRecord.parse("j1", raw);
    assertEquals(new JobRecord("j1", "order_close", 2, 4, before.createdAt(), probe.dueAt("j1"), "boom", 0, 0,
        MoveToDelayedScriptTest.TRICKY_PAYLOAD, Map.of("tenant", "acme", "p", "not the payload"), 0, 0), after);

    Delivery again = forwardAndClaim("j1");
    assertTrue(broker.outcomes().deadLetter("c1", again, "gave up"));
    JobRecord dead = JobRecord.parse("j1", probe.rawRecord("j1"));
    assertEquals("gave up", dead.lastError());
    assertEquals(MoveToDelayedScriptTest.TRICKY_PAYLOAD, dead.payloadJson());
    assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), broker.keys()).breaches());
  }

  @Test
  void aRecordWithoutATypeRewrittenByARetryKeepsItsPayloadReadable() {
    Delivery d = probe.seedInFlight("c1", "j3");
    RedisFixture.get().redis().hset(broker.keys().jobs(), "j3", "{\"maxAttempts\":3,\"attempt\":1,\"payload\":{\"n\":1}}");

    assertEquals(Moved.MOVED, broker.outcomes().retry("c1", d, 60_000, "boom"));

    String raw = probe.rawRecord("j3");
    assertTrue(raw.startsWith("{\"t\":null,\"m\":3,\"a\":2,"), raw);
    assertEquals("{\"n\":1}", JobRecord.payloadOf(raw));
    JobRecord.MalformedRecordException e = org.junit.jupiter.api.Assertions.assertThrows(
        JobRecord.MalformedRecordException.class, () -> JobRecord.parse("j3", raw));
    assertTrue(e.getMessage().contains("has no type"), e.getMessage());
  }

  @Test
  void aCompactRecordsDueTimeIsItsPlacesScoreAndAnEditKeepsItCompact() throws Exception {
    long dueAt = probe.seedDelayed("j2", 60_000);
    String raw = probe.rawRecord("j2");
    assertTrue(raw.matches("\\{\"t\":\"" + QueueProbe.TYPE + "\",\"m\":5,\"c\":\\d+,\"d\":\\d+,\"p\":\\{\"n\":1}}"), raw);
    assertEquals(dueAt, JobRecord.parse("j2", raw).dueAt());

    broker.changePending("j2", DueChange.KEEP, 0, "{\"n\":2}");

    String edited = probe.rawRecord("j2");
    assertEquals(raw.replace("{\"n\":1}", "{\"n\":2}"), edited);
  }
}
