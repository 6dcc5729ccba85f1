package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.TYPE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * awaitHandler.lua, handlersBeat.lua and expireNoHandler.lua through {@link HandlerWait}, and the
 * place they add as cancel, the check and the flow counts see it.
 */
class HandlerWaitScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final HandlerWait wait = broker.handlerWait();
  private final Inspector inspector = new Inspector(RedisFixture.get().redis(), broker.keys());
  private final InvariantCheck invariant = new InvariantCheck(RedisFixture.get().redis(), broker.keys());

  @Test
  void aJobLeftForWantOfAHandlerWaitsUnchargedInExactlyOnePlaceAndIsCounted() {
    Delivery d = probe.seedInFlight("c1", "j1");
    String before = probe.rawRecord("j1");

    assertTrue(wait.leave("c1", d, TYPE));

    assertEquals(List.of(), probe.placesOf("j1"), "out of delayed, ready, every in-flight list and dead");
    assertEquals(before, probe.rawRecord("j1"), "its record untouched: no attempt counted");
    assertTrue(wait.isWaiting("j1", TYPE));
    assertEquals(Map.of(TYPE, 1L), inspector.flow().waitingForHandler());
    assertEquals(List.of(), invariant.breaches(), "the waiting set is a place of the invariant");
    assertFalse(wait.leave("c1", d, TYPE), "a second leave of that delivery is fenced");
  }

  @Test
  void aWorkerThatAnnouncesTheTypeBringsItsWaitingJobsBackToReadyBoundedByItsRoom() {
    for (int i = 0; i < 5; i++) {
      wait.leave("c1", probe.seedInFlight("c1", "j" + i), TYPE);
    }

    HandlerWait.Announced none = wait.announce(List.of("other_type"), Duration.ofSeconds(30), 100);
    assertEquals(new HandlerWait.Announced(0, 0), none, "another type's worker leaves them waiting");

    HandlerWait.Announced some = wait.announce(List.of("other_type", TYPE), Duration.ofSeconds(30), 3);
    assertEquals(new HandlerWait.Announced(3, 2), some);
    assertEquals(List.of("j2", "j1", "j0"), probe.readyIds(),
        "the longest-waiting at ready's right end, to run first");
    assertEquals(new HandlerWait.Announced(2, 0), wait.announce(List.of(TYPE), Duration.ofSeconds(30), 100));
    assertEquals(Map.of(), inspector.flow().waitingForHandler());
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void aWaitingJobIsCancelled() {
    wait.leave("c1", probe.seedInFlight("c1", "j1"), TYPE);

    assertTrue(broker.cancel("j1"));

    assertEquals(0, probe.recordCount());
    assertEquals(Map.of(), inspector.flow().waitingForHandler());
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void jobsOfATypeNoLiveWorkerAnnouncesGoToDeadAfterTheWaitWithTheReason() throws InterruptedException {
    wait.leave("c1", probe.seedInFlight("c1", "j1"), TYPE);

    assertEquals(0, wait.expire(0, Duration.ofSeconds(10), 100), "not waited long enough");
    Thread.sleep(60);
    wait.announce(List.of(TYPE), Duration.ofMillis(300), 0); // a live worker has it, no room to run it yet
    assertEquals(0, wait.expire(0, Duration.ofMillis(50), 100), "a type a live worker announces is left to it");
    Thread.sleep(400); // that worker's announcement expires

    assertEquals(1, wait.expire(0, Duration.ofMillis(50), 100));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    JsonNode r = probe.record("j1");
    assertEquals("no live worker had a handler for type '" + TYPE + "' for 50ms", r.get("lastError").asText());
    assertEquals(1, r.get("attempt").asInt(), "never charged");
    assertEquals("1", RedisFixture.get().redis().hget(broker.keys().stats(), "count:dead:" + TYPE), "counted as dead");
    assertEquals(Map.of(), inspector.flow().waitingForHandler());
    assertEquals(List.of(), invariant.breaches());
  }
}
