package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.Claimed;
import dev.delayq.redis.HandlerWait;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The producer API's promote, reschedule and edit of a job that has not started. */
class ChangingJobsTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final DelayQueue queue = new DelayQueue(broker, 1_000, 5);

  @Test
  void promoteMakesADelayedJobReadyNow() {
    String id = queue.delay("t", "{}", Duration.ofHours(1)).id();

    ChangeResult r = queue.promote(id);

    assertEquals(ChangeResult.Status.READY, r.status());
    assertTrue(r.changed());
    assertEquals(List.of("ready"), probe.placesOf(id));
    assertTrue(r.describe().contains("due now"), r.describe());
  }

  @Test
  void rescheduleByDelayAndByInstantMovesTheDueTime() {
    String id = queue.delay("t", "{}", Duration.ofHours(1)).id();
    Instant at = Instant.ofEpochMilli(probe.redisNowMs() + 120_000);

    ChangeResult byInstant = queue.reschedule(id, at);
    assertEquals(new ChangeResult(id, ChangeResult.Status.DELAYED, at, null), byInstant);
    assertEquals(at.toEpochMilli(), probe.dueAt(id));

    long t0 = probe.redisNowMs();
    ChangeResult byDelay = queue.reschedule(id, Duration.ofSeconds(30));
    assertTrue(byDelay.dueAt().toEpochMilli() >= t0 + 30_000);
    assertEquals(byDelay.dueAt().toEpochMilli(), probe.dueAt(id));
  }

  @Test
  void editPayloadIsCheckedAsAtEnqueueAndStoredCompactly() {
    String id = queue.delay("t", "{\"n\":1}", Duration.ofHours(1)).id();

    assertEquals(ChangeResult.Status.DELAYED, queue.editPayload(id, Map.of("n", 2)).status());
    assertTrue(probe.rawRecord(id).endsWith(",\"p\":{\"n\":2}}"));

    IllegalArgumentException notJson = assertThrows(IllegalArgumentException.class,
        () -> queue.editPayload(id, "{broken"));
    assertTrue(notJson.getMessage().contains("not JSON"), notJson.getMessage());
    IllegalArgumentException tooBig = assertThrows(IllegalArgumentException.class,
        () -> queue.editPayload(id, "\"" + "x".repeat(2_000) + "\""));
    assertTrue(tooBig.getMessage().contains("queue.maxPayloadBytes"), tooBig.getMessage());
    assertTrue(probe.rawRecord(id).endsWith(",\"p\":{\"n\":2}}"), "a refused edit changes nothing");
  }

  @Test
  void aJobWaitingForAHandlerIsRefusedSayingSoNotAsRunning() {
    String id = queue.delay("t", "{}", Duration.ZERO).id();
    Claimed claimed = broker.claims().claim("c1", 1.0, 30_000).orElseThrow();
    assertTrue(broker.handlerWait().leave("c1", claimed.delivery(), "t"));

    for (ChangeResult r : List.of(queue.promote(id), queue.reschedule(id, Duration.ofMinutes(1)),
        queue.editPayload(id, "{}"))) {
      assertEquals(ChangeResult.Status.WAITING_FOR_HANDLER, r.status());
      assertEquals("job " + id + " is due and waits for a worker with its type's handler: only a delayed or "
          + "ready job can be changed (cancel it, or start a worker that has the handler)", r.describe());
    }
    assertTrue(broker.handlerWait().isWaiting(id, "t"), "a refused change leaves it waiting");
  }

  @Test
  void aRunningJobIsRefusedWithAClearAnswer() {
    String id = queue.delay("t", "{}", Duration.ZERO).id();
    broker.claims().claim("c1", 1.0, 30_000).orElseThrow();

    for (ChangeResult r : List.of(queue.promote(id), queue.reschedule(id, Duration.ofMinutes(1)),
        queue.editPayload(id, "{}"))) {
      assertEquals(ChangeResult.Status.RUNNING, r.status());
      assertNull(r.dueAt());
      assertEquals("job " + id + " is running: only a delayed or ready job can be changed", r.describe());
    }
    assertEquals(List.of("inflight:c1"), probe.placesOf(id));
  }

  @Test
  void anUnknownJobIsRefused() {
    ChangeResult r = queue.promote("nope");
    assertEquals(ChangeResult.Status.UNKNOWN, r.status());
    assertTrue(r.describe().startsWith("no job with id nope"), r.describe());
  }

  @Test
  void negativeDelayIsRefused() {
    String id = queue.delay("t", "{}", Duration.ofHours(1)).id();
    assertThrows(IllegalArgumentException.class, () -> queue.reschedule(id, Duration.ofSeconds(-1)));
  }
}
