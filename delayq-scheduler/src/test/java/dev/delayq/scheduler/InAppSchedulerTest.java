package dev.delayq.scheduler;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobRequest;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.testing.RedisFixture;
import dev.delayq.worker.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scheduler engine inside an app, beside an in-app worker, on a real Redis with no scheduler
 * process: delayed jobs move and run, and of two engines on one queue one holds the lease and
 * the other takes it over as soon as the first is closed.
 */
class InAppSchedulerTest {
  private static final String TYPE = "in_app_test";
  private static final Duration LEASE_TTL = Duration.ofSeconds(6);

  private final String queue = RedisFixture.freshQueue();
  private final Keys keys = new Keys("delayq", queue);
  private final DelayqConfig config = new ConfigLoader().load(null, Map.of(
      "DELAYQ_REDIS_URL", RedisFixture.get().url(), "DELAYQ_QUEUE", queue,
      "DELAYQ_WORKER_THREADS", "2", "DELAYQ_WORKER_POLL_TIMEOUT", "200ms",
      "DELAYQ_SCHEDULER_LEASE_TTL", LEASE_TTL.toSeconds() + "s"));
  /** Per job id, how many times a handler ran it. */
  private final Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();
  private final Map<String, Long> ranAtMs = new ConcurrentHashMap<>();
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closing(T c) {
    toClose.add(c);
    return c;
  }

  private JobHandler ledger() {
    return new JobHandler() {
      @Override
      public String type() {
        return TYPE;
      }

      @Override
      public JobResult handle(JobContext ctx) {
        ran.computeIfAbsent(ctx.id(), k -> new AtomicInteger()).incrementAndGet();
        ranAtMs.putIfAbsent(ctx.id(), System.currentTimeMillis());
        return JobResult.done();
      }
    };
  }

  private Worker startWorker() {
    RedisConnection redis = closing(RedisConnector.connect(config, "in-app-test-worker", 8));
    Worker worker = closing(Worker.inApp(config, redis, List.of(ledger())));
    worker.start();
    return worker;
  }

  private DelayQueue producer() {
    return new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5);
  }

  private String leaseHolder() {
    return RedisFixture.get().redis().get(keys.leader());
  }

  @Test
  void aDelayedJobMovesToReadyAndRunsInTheAppWithNoSchedulerProcess() {
    Scheduler scheduler = closing(Scheduler.inApp(config));
    startWorker();

    long enqueuedMs = System.currentTimeMillis();
    String id = producer().delay(TYPE, Map.of("order_id", 1001), Duration.ofSeconds(2)).id();

    await().atMost(Duration.ofSeconds(15)).until(() -> ran.containsKey(id));
    assertEquals(1, ran.get(id).get());
    long tookMs = ranAtMs.get(id) - enqueuedMs;
    assertTrue(tookMs >= 1_900 && tookMs < 5_000, "ran " + tookMs + " ms after a 2 s delay");
    assertEquals(scheduler.owner(), leaseHolder(), "the in-app engine holds the lease");
    assertNull(scheduler.failure());
  }

  @Test
  void closingTheHolderHandsTheLeaseToTheStandbyWellUnderTheLeaseTtlAndNoJobIsLostOrRunTwice() {
    Scheduler first = closing(Scheduler.inApp(config));
    await().atMost(Duration.ofSeconds(10)).until(() -> first.owner().equals(leaseHolder()));
    Scheduler second = closing(Scheduler.inApp(config));
    startWorker();

    // jobs due every 10 ms over 6 s, the holder closed about 2 s in
    int jobs = 600;
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      requests.add(JobRequest.delay(TYPE, "{}", Duration.ofMillis(500 + 10L * i)));
    }
    Set<String> ids = new HashSet<>();
    producer().enqueueAll(requests).forEach(r -> ids.add(r.id()));
    await().atMost(Duration.ofSeconds(10)).until(() -> ran.size() >= 150);
    assertEquals(first.owner(), leaseHolder(), "the first engine held the lease throughout");

    first.close();
    long closedNanos = System.nanoTime();
    assertTrue(!first.owner().equals(leaseHolder()), "close gave the lease back");
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10))
        .until(() -> second.owner().equals(leaseHolder()));
    long handOverMs = (System.nanoTime() - closedNanos) / 1_000_000;
    // the standby looks at the lease every third of its TTL (2 s here); without the give-back it
    // would wait for the lease to lapse, 4 to 8 s after the close
    assertTrue(handOverMs < LEASE_TTL.toMillis() / 2, "lease moved " + handOverMs + " ms after close (TTL "
        + LEASE_TTL.toMillis() + " ms)");

    await().atMost(Duration.ofSeconds(30)).until(() -> ran.size() == jobs);
    assertEquals(ids, ran.keySet(), "lost 0");
    ran.forEach((id, n) -> assertEquals(1, n.get(), id + " ran once"));
    assertNull(second.failure());
  }
}
