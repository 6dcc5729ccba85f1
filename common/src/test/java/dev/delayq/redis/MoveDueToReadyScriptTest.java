package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** moveDueToReady.lua through {@link RedisBroker#moveDueToReady}. */
class MoveDueToReadyScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  /**
   * Enqueues each id due {@code offset} ms after a base a moment from now (far enough that a slow
   * machine still enqueues before it), then waits until all are due.
   */
  private Map<String, Long> enqueueDueSoon(Map<String, Integer> offsets) {
    long base = probe.redisNowMs() + 150;
    Map<String, Long> due = new LinkedHashMap<>();
    offsets.forEach((id, offset) -> due.put(id, broker.enqueue(at(id, "{}", base + offset)).dueAt()));
    for (String id : offsets.keySet()) {
      assertEquals(List.of("delayed"), probe.placesOf(id), "seeded in delayed");
    }
    probe.awaitRedisTimePast(due.values().stream().mapToLong(Long::longValue).max().orElseThrow());
    return due;
  }

  private static Map<String, Integer> offsets(Object... idAndOffset) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (int i = 0; i < idAndOffset.length; i += 2) {
      m.put((String) idAndOffset[i], (Integer) idAndOffset[i + 1]);
    }
    return m;
  }

  @Test
  void dueJobMovesToReadyInOneBatch() {
    long farDue = probe.seedDelayed("far", 3_600_000);
    enqueueDueSoon(offsets("a", 0, "b", 1, "c", 2));
    Map<String, String> records = new LinkedHashMap<>();
    for (String id : List.of("a", "b", "c", "far")) {
      records.put(id, probe.rawRecord(id));
    }

    Forwarded f = broker.scheduling().moveDueToReady(1000);

    assertEquals(3, f.moved());
    assertEquals(OptionalLong.of(farDue), f.nextDueAt());
    assertEquals(List.of("c", "b", "a"), probe.readyIds());
    assertEquals(List.of("far"), probe.delayedIds());
    records.forEach((id, raw) -> assertEquals(raw, probe.rawRecord(id), "record of " + id + " untouched"));
    for (String id : List.of("a", "b", "c")) {
      assertEquals(List.of("ready"), probe.placesOf(id));
    }
    assertEquals(List.of(), probe.deadIds());
  }

  @Test
  void dueJobsMoveInDueOrderWithTheEarliestWhereConsumersTake() {
    probe.seedReady("waiting");
    enqueueDueSoon(offsets("third", 30, "first", 10, "second", 20));

    broker.scheduling().moveDueToReady(1000);

    assertEquals(List.of("third", "second", "first", "waiting"), probe.readyIds());
    List<String> claimed = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      claimed.add(broker.claims().claim("c1", 1.0, 30_000).orElseThrow().id());
    }
    assertEquals(List.of("waiting", "first", "second", "third"), claimed);
  }

  @Test
  void withAGraceOnlyJobsOverdueByItMove() {
    Map<String, Long> due = enqueueDueSoon(offsets("past", 0, "recent", 1_100));

    Forwarded f = broker.scheduling().moveDueToReady(0, 1000, 1_000);

    assertEquals(1, f.moved());
    assertEquals(List.of("ready"), probe.placesOf("past"));
    assertEquals(List.of("delayed"), probe.placesOf("recent"), "due, but not overdue by the grace: the holder's");
    assertEquals(OptionalLong.of(due.get("recent")), f.nextDueAt(), "already past: the caller adds its grace");
  }

  @Test
  void jobsNotYetDueStayDelayed() {
    long due = probe.seedDelayed("later", 60_000);

    Forwarded f = broker.scheduling().moveDueToReady(1000);

    assertEquals(0, f.moved());
    assertEquals(OptionalLong.of(due), f.nextDueAt());
    assertEquals(List.of("delayed"), probe.placesOf("later"));
    assertEquals(List.of(), probe.readyIds());
  }

  @Test
  void atMostLimitIdsMovePerCall() {
    Map<String, Long> due = enqueueDueSoon(offsets("j1", 1, "j2", 2, "j3", 3, "j4", 4, "j5", 5));

    Forwarded first = broker.scheduling().moveDueToReady(2);
    assertEquals(2, first.moved());
    assertEquals(List.of("j2", "j1"), probe.readyIds());
    assertEquals(List.of("j3", "j4", "j5"), probe.delayedIds());
    assertEquals(OptionalLong.of(due.get("j3")), first.nextDueAt(), "next due is already past: loop at once");

    assertEquals(2, broker.scheduling().moveDueToReady(2).moved());
    Forwarded last = broker.scheduling().moveDueToReady(2);
    assertEquals(1, last.moved());
    assertEquals(OptionalLong.empty(), last.nextDueAt());
    assertEquals(List.of("j5", "j4", "j3", "j2", "j1"), probe.readyIds());
    assertEquals(0, broker.scheduling().moveDueToReady(2).moved());
  }

  @Test
  void emptyQueueReportsNoNextDueAndRedisNow() {
    long before = probe.redisNowMs();
    Forwarded f = broker.scheduling().moveDueToReady(1000);
    long after = probe.redisNowMs();

    assertEquals(0, f.moved());
    assertEquals(OptionalLong.empty(), f.nextDueAt());
    assertTrue(f.redisNow() >= before && f.redisNow() <= after);
    assertEquals(f.redisNow(), f.redisNowMicros() / 1000, "the same clock, to the microsecond");
  }

  @Test
  void theConfiguredMaximumBatchOf5000MovesInOneCall() {
    long headDue = broker.enqueue(at("head", "{}", probe.redisNowMs() + 150)).dueAt();
    assertEquals(List.of("delayed"), probe.placesOf("head"));
    probe.awaitRedisTimePast(headDue);
    long past = probe.redisNowMs() - 1_000;
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 4_999; i++) {
      jobs.add(at("j" + i, "{}", past));
    }
    broker.enqueueAll(jobs); // all wait behind the due head, in delayed
    assertEquals(5_000, probe.delayedIds().size());

    Forwarded f = broker.scheduling().moveDueToReady(5_000);

    assertEquals(5_000, f.moved());
    assertEquals(OptionalLong.empty(), f.nextDueAt());
    assertEquals(5_000, RedisFixture.get().redis().llen(broker.keys().ready()));
    assertEquals("head", RedisFixture.get().redis().lindex(broker.keys().ready(), 0), "latest due at the left end");
    assertEquals(5_000, probe.recordCount());
  }
}
