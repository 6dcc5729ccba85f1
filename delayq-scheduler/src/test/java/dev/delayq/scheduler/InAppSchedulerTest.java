package dev.delayq.scheduler;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobRequest;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.DelayedReads;
import dev.delayq.redis.Keys;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scheduler engine inside an app, on a real Redis with no scheduler process: a delayed job
 * moves to ready when it falls due, and of two engines on one queue one holds the lease and the
 * other takes it over as soon as the first is closed, every job forwarded once. (Run by an in-app
 * worker: the starter's DelayqSchedulerLifecycleTest and e2e's InAppWorkerKilledTest.)
 */
class InAppSchedulerTest {
  private static final Duration LEASE_TTL = Duration.ofSeconds(30);

  private final String queue = RedisFixture.freshQueue();
  private final Keys keys = new Keys("delayq", queue);
  private final DelayqConfig config = new ConfigLoader().load(null, Map.of(
      "DELAYQ_REDIS_URL", RedisFixture.get().url(), "DELAYQ_QUEUE", queue,
      "DELAYQ_SCHEDULER_LEASE_TTL", LEASE_TTL.toSeconds() + "s"));
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private Scheduler start() {
    Scheduler s = Scheduler.inApp(config);
    toClose.add(s);
    return s;
  }

  private DelayQueue producer() {
    return new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5);
  }

  private String leaseHolder() {
    return RedisFixture.get().redis().get(keys.leader());
  }

  /** Per id, how often it is in ready (no worker takes any). */
  private Map<String, Integer> readyCounts() {
    Map<String, Integer> counts = new HashMap<>();
    for (String id : RedisFixture.get().redis().lrange(keys.ready(), 0, -1)) {
      counts.merge(id, 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void aDelayedJobMovesToReadyWhenItFallsDueWithNoSchedulerProcess() {
    Scheduler scheduler = start();
    long enqueuedNanos = System.nanoTime();
    String id = producer().delay("in_app_test", Map.of("order_id", 1001), Duration.ofSeconds(2)).id();

    await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(5)).until(() -> readyCounts().containsKey(id));

    long tookMs = (System.nanoTime() - enqueuedNanos) / 1_000_000;
    assertTrue(tookMs >= 1_950 && tookMs < 5_000, "in ready " + tookMs + " ms after a 2 s delay");
    assertEquals(scheduler.owner(), leaseHolder(), "the in-app engine holds the lease");
    assertNull(scheduler.failure());
  }

  @Test
  void closingTheHolderHandsTheLeaseToTheStandbyAtOnceAndEveryJobIsForwardedOnce() {
    Scheduler first = start();
    await().atMost(Duration.ofSeconds(10)).until(() -> first.owner().equals(leaseHolder()));
    Scheduler second = start();

    // jobs due every 10 ms over 6 s, the holder closed about 2 s in
    int jobs = 600;
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      requests.add(JobRequest.delay("in_app_test", "{}", Duration.ofMillis(500 + 10L * i)));
    }
    Set<String> ids = new HashSet<>();
    producer().enqueueAll(requests).forEach(r -> ids.add(r.id()));
    await().atMost(Duration.ofSeconds(10)).until(() -> readyCounts().size() >= 150);
    assertEquals(first.owner(), leaseHolder(), "the first engine held the lease throughout");

    first.close();
    long closedNanos = System.nanoTime();
    assertNotEquals(first.owner(), leaseHolder(), "close gave the lease back");
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10))
        .until(() -> second.owner().equals(leaseHolder()));
    long handOverMs = (System.nanoTime() - closedNanos) / 1_000_000;
    // the release is announced on the wake channel and the standby takes the lease at once;
    // otherwise it would look at its next renewal time (every third of the TTL: up to 10 s here),
    // and without the give-back only once the lease lapsed (20 to 40 s after the close)
    assertTrue(handOverMs < 1_000, "lease moved " + handOverMs + " ms after close (TTL " + LEASE_TTL.toMillis()
        + " ms)");

    await().atMost(Duration.ofSeconds(30)).until(() -> readyCounts().size() == jobs);
    Map<String, Integer> counts = readyCounts();
    assertEquals(ids, counts.keySet(), "lost 0");
    counts.forEach((id, n) -> assertEquals(1, n, id + " forwarded once"));
    assertEquals(0L, new DelayedReads(RedisFixture.get().redis()).count(keys, "-inf", "+inf"), "none left in delayed");
    assertNull(second.failure());
  }
}
