package dev.delayq;

import dev.delayq.redis.Report;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Debounce through the producer API, with the scheduler's forward and a consumer running in
 * threads: fifty enqueues of one id 100 ms apart, each pushing the due time to 1 s after it, run
 * the job exactly once, about 1 s after the last enqueue, with the last payload.
 */
class DebounceTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  record Run(String id, String record, long redisMs) {}

  @Test
  void fiftyEnqueuesPushingTheDueTimeRunOnceAfterTheLastWithTheLastPayload() throws Exception {
    List<Run> runs = new CopyOnWriteArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    Thread forwarder = new Thread(() -> {
      while (!stop.get()) {
        broker.scheduling().moveDueToReady(1000);
        sleep(2);
      }
    });
    Thread consumer = new Thread(() -> {
      while (!stop.get()) {
        broker.claims().claim("c1", 0.05, 30_000).ifPresent(c -> {
          runs.add(new Run(c.id(), c.rawRecord(), probe.redisNowMs()));
          broker.acks().ackAll(List.of(new Report("c1", null, List.of(c.delivery()))));
        });
      }
    });
    forwarder.start();
    consumer.start();
    long lastDue = 0;
    try (DelayQueue queue = new DelayQueue(broker, 1 << 20, 5)) {
      JobOptions debounce = JobOptions.withId("digest-42").ifPending(IfPending.REPLACE_AND_PUSH);
      for (int i = 1; i <= 50; i++) {
        EnqueueResult r = queue.delay("digest", "{\"comment\":" + i + "}", Duration.ofSeconds(1), debounce);
        lastDue = r.dueAt().toEpochMilli(); // Redis's time of this enqueue + 1 s
        assertEquals(i == 1 ? EnqueueResult.Status.ACCEPTED : EnqueueResult.Status.CHANGED, r.status(),
            "enqueue " + i);
        assertEquals(List.of(), runs, "nothing runs while the enqueues keep coming (" + i + ")");
        Thread.sleep(100);
      }
      Thread.sleep(1_500);
    } finally {
      stop.set(true);
      forwarder.join();
      consumer.join();
    }

    assertEquals(1, runs.size(), "exactly one run: " + runs);
    Run run = runs.get(0);
    assertTrue(run.record().endsWith(",\"p\":{\"comment\":50}}"), run.record());
    long after = run.redisMs() - (lastDue - 1_000);
    assertTrue(after >= 1_000 && after < 1_300, "ran " + after + " ms after the last enqueue");
    assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), broker.keys()).breaches());
  }

  @Test
  void aRunningJobRefusesTheReplaceWithAClearAnswer() {
    try (DelayQueue queue = new DelayQueue(broker, 1 << 20, 5)) {
      queue.delay("digest", "{}", Duration.ZERO, JobOptions.withId("d1"));
      broker.claims().claim("c1", 1.0, 30_000).orElseThrow();

      EnqueueResult r = queue.delay("digest", "{\"v\":2}", Duration.ofSeconds(1),
          JobOptions.withId("d1").ifPending(IfPending.REPLACE_PAYLOAD));

      assertEquals(EnqueueResult.Status.REFUSED_RUNNING, r.status());
      assertTrue(r.refused());
      assertEquals("job d1 is running: it cannot be replaced (only a delayed or ready job can)", r.describe());
    }
  }

  @Test
  void anIfPendingOptionWithoutAnIdIsRefused() {
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> JobOptions.defaults().ifPending(IfPending.PUSH_DUE));
    assertTrue(e.getMessage().contains("give the job an id"), e.getMessage());
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
