package dev.delayq.scheduler;

import static dev.delayq.testing.QueueProbe.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Forwarder#tick()} on a real Redis. */
class ForwarderTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  /**
   * Enqueues the ids due one millisecond apart, in the order given by {@code dueOrder}, a moment
   * from now (so they land in delayed), and waits until Redis's clock has passed them all.
   */
  private void seedDueInDelayed(List<String> ids, List<Integer> dueOrder) {
    long base = probe.redisNowMs() + 100;
    for (int i = 0; i < ids.size(); i++) {
      broker.enqueue(at(ids.get(i), "{}", base + dueOrder.get(i)));
      assertEquals(List.of("delayed"), probe.placesOf(ids.get(i)), "seeded in delayed");
    }
    probe.awaitRedisTimePast(base + ids.size());
  }

  @Test
  void tickMovesOnlyDueJobsInDueOrder() {
    probe.seedDelayed("later", 60_000);
    seedDueInDelayed(List.of("second", "third", "first"), List.of(1, 2, 0));

    Forwarder.Pass pass = new Forwarder(broker, 10).tick();

    assertEquals(3, pass.moved());
    assertFalse(pass.moreDue());
    assertEquals(List.of("third", "second", "first"), probe.readyIds(),
        "consumers take from the right, so the earliest due is at the right end");
    assertEquals(List.of("later"), probe.delayedIds());
  }

  @Test
  void fullBatchSaysMoreAreDue() {
    seedDueInDelayed(List.of("a", "b", "c"), List.of(0, 1, 2));
    Forwarder forwarder = new Forwarder(broker, 2);

    Forwarder.Pass first = forwarder.tick();
    Forwarder.Pass second = forwarder.tick();

    assertEquals(2, first.moved());
    assertTrue(first.moreDue());
    assertEquals(1, second.moved());
    assertFalse(second.moreDue());
    assertEquals(List.of("c", "b", "a"), probe.readyIds());
  }

  @Test
  void batchFilledExactlyStillSaysMoreMayBeDue() {
    seedDueInDelayed(List.of("a", "b"), List.of(0, 1));
    Forwarder forwarder = new Forwarder(broker, 2);

    assertTrue(forwarder.tick().moreDue(), "a full batch cannot know it was the last");
    Forwarder.Pass empty = forwarder.tick();
    assertEquals(0, empty.moved());
    assertFalse(empty.moreDue());
  }

  @Test
  void nextDueIsTheWaitByRedisClockFromTheMomentOfTheReply() {
    long dueAt = probe.seedDelayed("later", 60_000);

    long before = System.nanoTime();
    Forwarder.Pass pass = new Forwarder(broker, 10).tick();
    long after = System.nanoTime();

    long waitNanos = (dueAt * 1000 - pass.redisNowMicros()) * 1000;
    assertTrue(waitNanos > 55_000_000_000L && waitNanos <= 60_000_000_000L, "wait " + waitNanos);
    assertTrue(pass.nextDueNanos() >= before + waitNanos && pass.nextDueNanos() <= after + waitNanos,
        "next due " + (pass.nextDueNanos() - before) + " ns after the call began, expected "
            + waitNanos + " plus the call's own time (" + (after - before) + ")");
    assertEquals(0, pass.moved());
  }

  @Test
  void theWaitEndsAtTheStartOfTheDueMillisecondToTheMicrosecond() {
    // 0.9 ms into ms 1,000 on Redis's clock, a job due at ms 1,003 is 2.1 ms away, not 3 ms
    assertEquals(2_100_000, Forwarder.waitNanos(1_003, 1_000_900));
    assertEquals(1_000, Forwarder.waitNanos(1_003, 1_002_999));
    assertEquals(0, Forwarder.waitNanos(1_003, 1_003_000), "due now");
    assertEquals(0, Forwarder.waitNanos(1_003, 1_007_250), "overdue: at once");
  }

  @Test
  void nextDueIsNeverWhenNothingIsDelayed() {
    probe.seedReady("already-ready");

    Forwarder.Pass pass = new Forwarder(broker, 10).tick();

    assertEquals(Long.MAX_VALUE, pass.nextDueNanos());
    assertEquals(0, pass.moved());
    assertFalse(pass.moreDue());
  }
}
