package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.delayed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** changePending.lua through {@link RedisBroker#changePending}: promote, reschedule, edit. */
class ChangePendingScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  @Test
  void promotedDelayedJobGoesToTheEndOfReadyConsumersTakeNext() {
    probe.seedReady("waiting");
    probe.seedDelayed("j1", 60_000);
    long t0 = probe.redisNowMs();

    PendingChange c = broker.changePending("j1", DueChange.NOW, 0, null);

    assertEquals("ready", c.place());
    assertTrue(c.dueAt() >= t0);
    assertEquals(List.of("waiting", "j1"), probe.readyIds(), "the right end is taken next");
    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(c.dueAt(), probe.record("j1").get("dueAt").asLong());
  }

  @Test
  void promotedReadyJobMovesToTheEndConsumersTakeNext() {
    probe.seedReady("j1");
    probe.seedReady("j2");
    assertEquals(List.of("j2", "j1"), probe.readyIds());

    assertEquals("ready", broker.changePending("j2", DueChange.NOW, 0, null).place());

    assertEquals(List.of("j1", "j2"), probe.readyIds());
  }

  @Test
  void promoteKeepsTheAttemptHistoryAndThePayloadByteForByte() {
    Delivery d = probe.seedInFlight("c1", delayed("j1", MoveToDelayedScriptTest.TRICKY_PAYLOAD, 0));
    assertEquals(Moved.MOVED, broker.outcomes().retry("c1", d, 60_000, "boom"));
    JsonNode before = probe.record("j1");

    broker.changePending("j1", DueChange.NOW, 0, null);

    JsonNode after = probe.record("j1");
    assertEquals(2, after.get("attempt").asInt());
    assertEquals("boom", after.get("lastError").asText());
    assertEquals(before.get("createdAt"), after.get("createdAt"));
    assertTrue(probe.rawRecord("j1").endsWith(",\"p\":" + MoveToDelayedScriptTest.TRICKY_PAYLOAD + "}"));
  }

  @Test
  void rescheduledDelayedJobTakesItsNewDueTimeAndWakesTheSchedulerWhenItIsTheHead() {
    probe.seedDelayed("later", 120_000);
    probe.seedDelayed("j1", 600_000);
    long t0 = probe.redisNowMs();
    long tokensBefore = probe.wakeTokens();
    RedisFixture.get().redis().del(broker.keys().wake());

    PendingChange c = broker.changePending("j1", DueChange.DELAY, 5_000, null);

    assertEquals("delayed", c.place());
    assertTrue(c.dueAt() >= t0 + 5_000 && c.dueAt() <= probe.redisNowMs() + 5_000);
    assertEquals(c.dueAt(), probe.dueAt("j1"));
    assertEquals(c.dueAt(), probe.record("j1").get("dueAt").asLong());
    assertEquals(List.of("j1", "later"), probe.delayedIds());
    assertEquals(1, probe.wakeTokens(), "the new head wakes the scheduler (" + tokensBefore + " before)");
  }

  @Test
  void readyJobRescheduledLaterGoesBackToDelayed() {
    probe.seedReady("j1");
    long at = probe.redisNowMs() + 30_000;

    PendingChange c = broker.changePending("j1", DueChange.AT, at, null);

    assertEquals(new PendingChange("delayed", at), c);
    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertEquals(at, probe.dueAt("j1"));
  }

  @Test
  void delayedJobRescheduledToThePastJoinsReadyBehindTheWaitingOnes() {
    probe.seedReady("waiting");
    probe.seedDelayed("j1", 60_000);

    PendingChange c = broker.changePending("j1", DueChange.AT, probe.redisNowMs() - 10_000, null);

    assertEquals("ready", c.place());
    assertEquals(List.of("j1", "waiting"), probe.readyIds());
  }

  @Test
  void editReplacesThePayloadAndKeepsTheDueTimeAndPlace() {
    long due = probe.seedDelayed("j1", 60_000);
    probe.seedReady("j2");

    assertEquals(new PendingChange("delayed", due), broker.changePending("j1", DueChange.KEEP, 0, "{\"n\":2}"));
    PendingChange r = broker.changePending("j2", DueChange.KEEP, 0, MoveToDelayedScriptTest.TRICKY_PAYLOAD);

    assertEquals("ready", r.place());
    assertTrue(probe.rawRecord("j1").endsWith(",\"p\":{\"n\":2}}"));
    assertEquals(due, probe.dueAt("j1"));
    assertTrue(probe.rawRecord("j2").endsWith(",\"p\":" + MoveToDelayedScriptTest.TRICKY_PAYLOAD + "}"));
    assertEquals(List.of("ready"), probe.placesOf("j2"));
    assertEquals(1, probe.record("j2").get("attempt").asInt());
  }

  @Test
  void runningDeadAndUnknownJobsAreRefusedAndNothingChanges() {
    probe.seedInFlight("c1", "running");
    probe.seedDead("c2", "dead", "boom");
    String runningRecord = probe.rawRecord("running");
    String deadRecord = probe.rawRecord("dead");

    for (DueChange due : DueChange.values()) {
      assertEquals(new PendingChange("running", -1), broker.changePending("running", due, 1000, "{}"));
      assertEquals(new PendingChange("dead", -1), broker.changePending("dead", due, 1000, "{}"));
      assertEquals(new PendingChange("unknown", -1), broker.changePending("nope", due, 1000, "{}"));
    }

    assertEquals(runningRecord, probe.rawRecord("running"));
    assertEquals(List.of("inflight:c1"), probe.placesOf("running"));
    assertEquals(deadRecord, probe.rawRecord("dead"));
    assertEquals(List.of("dead"), probe.placesOf("dead"));
    assertNull(probe.rawRecord("nope"));
  }

  @Test
  void aRecordThatCannotBeReadIsRefusedAndStaysWhereItIs() {
    probe.seedDelayed("j1", 60_000);
    RedisFixture.get().redis().hset(broker.keys().jobs(), "j1", "{not json");

    PendingChange c = broker.changePending("j1", DueChange.NOW, 0, null);

    assertTrue(c.place().startsWith("malformed: "), c.place());
    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertEquals("{not json", probe.rawRecord("j1"));
  }
}
