package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A worker of 8 consumers on one queue: while idle, one of them waits in Redis and the others park
 * in the worker (so a forward of a few due jobs wakes one, not eight); a consumer of quick jobs
 * takes several in one claim; and when one of those turns out slow, the jobs it claimed behind it
 * go to the idle consumers instead of waiting for it. Every job runs once.
 */
class IdleConsumersTest {
  private static final long SLOW_MS = 4_000;

  @Test
  void oneIdleConsumerWaitsInRedisAndNoJobWaitsBehindASlowOneWhileConsumersAreIdle() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    try (JvmProcesses processes = q.processes("idleConsumers").with("DELAYQ_WORKER_THREADS", "8")) {
      processes.scheduler("scheduler");
      processes.worker("worker-1");
      // quick jobs first, 200 a second, so the worker learns that its handlers are quick
      List<JobRequest> quick = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        quick.add(JobRequest.delay("test_record", q.payload(), Duration.ofMillis(500 + 5L * i)));
      }
      q.producer.enqueueAll(quick);
      await().atMost(60, TimeUnit.SECONDS).until(() -> q.log.size() == 400);

      // (0 for the moment between one consumer's wait timing out and the next one's starting)
      await().atMost(10, TimeUnit.SECONDS).until(() -> blockedInRedis("worker-1") == 1);
      for (int i = 0; i < 20; i++) {
        long blocked = blockedInRedis("worker-1");
        assertTrue(blocked <= 1, blocked + " idle consumers of the worker wait in Redis, not one");
        Thread.sleep(50);
      }

      // one slow job and 15 quick ones due at the same ms; the slow one's id sorts first, so it is
      // the first forwarded and claimed, and a claim that takes more takes quick ones behind it
      java.time.Instant due = java.time.Instant.now().plusMillis(1500);
      List<JobRequest> mixed = new ArrayList<>();
      mixed.add(JobRequest.at("test_record", q.payload("\"sleepMs\":" + SLOW_MS), due)
          .with(JobOptions.withId("a-slow")));
      for (int i = 0; i < 15; i++) {
        mixed.add(JobRequest.at("test_record", q.payload(), due).with(JobOptions.withId(String.format("b-quick-%02d", i))));
      }
      List<String> ids = q.producer.enqueueAll(mixed).stream().map(dev.delayq.EnqueueResult::id).toList();
      await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.size() == 416);
      await().atMost(30, TimeUnit.SECONDS).until(() -> q.inspector.depths().records() == 0);

      Map<String, List<RunLog.Run>> runs = q.log.byId();
      long slowStart = runs.get(ids.get(0)).get(0).startMs();
      for (String id : ids.subList(1, ids.size())) {
        long start = runs.get(id).get(0).startMs();
        assertTrue(start < slowStart + SLOW_MS / 2, "quick job " + id + " started " + (start - slowStart)
            + " ms after the slow one: it waited behind it");
      }
      runs.forEach((id, r) -> assertEquals(1, r.size(), id + " ran " + r.size() + " times"));
      assertEquals(416, runs.size(), "lost 0");
      assertEquals(List.of(), q.invariant.breaches());
    }
  }

  /** The worker's Redis connections blocked in BLMOVE now. */
  private static long blockedInRedis(String clientName) {
    Object reply = dev.delayq.testing.RedisFixture.get().redis().sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "LIST");
    String clients = new String((byte[]) reply, java.nio.charset.StandardCharsets.UTF_8);
    return clients.lines()
        .filter(l -> l.contains(" name=" + clientName + " ") && l.contains(" cmd=blmove ") && l.matches(".* flags=\\w*b\\w* .*"))
        .count();
  }
}
