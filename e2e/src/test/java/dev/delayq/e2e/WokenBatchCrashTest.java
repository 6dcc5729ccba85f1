package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;

/**
 * The batch a consumer takes when BLMOVE wakes it (claim.lua takes the rest of its fair share in
 * the same call), against a SIGKILL: 1 worker x 1 thread waits idle in BLMOVE, then 101 jobs with
 * maxAttempts 1 come due together, the first of which sleeps 10 s. The wake takes it and 63 more
 * in one claim (the default prefetch of 64); the worker is SIGKILLed while the first sleeps. Only
 * that job is charged: the 63 unstarted ones of the batch go back uncharged, and every job runs,
 * once, at attempt 1.
 */
class WokenBatchCrashTest {
  @Test
  void aWorkerKilledInTheBatchItsWakeClaimedChargesOnlyTheRunningJobAndLosesNone() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    try (JvmProcesses processes = q.processes("wokenBatchCrash")
        .with("DELAYQ_WORKER_THREADS", "1")
        .with("DELAYQ_WORKER_HEARTBEAT_INTERVAL", "500ms")
        .with("DELAYQ_WORKER_HEARTBEAT_TTL", "2s")
        .with("DELAYQ_SCHEDULER_RECOVER_INTERVAL", "250ms")) {
      long others = blockedInBlmove(q); // of other tests, should they share this Redis
      processes.scheduler("scheduler");
      Process worker = processes.worker("worker-1");
      await().atMost(30, TimeUnit.SECONDS).until(() -> blockedInBlmove(q) == others + 1);

      // all due in the same millisecond, so one forward puts them in ready together; ids in
      // the order they run (the wheel orders one millisecond's ids by id)
      Instant dueAt = Instant.now().plusSeconds(3);
      JobOptions once = JobOptions.defaults().maxAttempts(1);
      List<JobRequest> jobs = new ArrayList<>();
      jobs.add(JobRequest.at("test_record", q.payload("\"sleepMs\":10000"), dueAt).with(once.id("a-sleeper")));
      for (int i = 0; i < 100; i++) {
        jobs.add(JobRequest.at("test_record", q.payload(), dueAt).with(once.id(String.format("b-%03d", i))));
      }
      q.producer.enqueueAll(jobs);
      assertEquals(others + 1, blockedInBlmove(q), "the consumer still waits in BLMOVE when they come due");

      await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.size() >= 1);
      assertEquals("a-sleeper", q.log.runs().get(0).id(), "the sleeping job runs first");
      assertEquals(64, q.inspector.depths().inFlight(), "the wake took a batch of its prefetch of 64");
      JvmProcesses.sigkill(worker);
      processes.worker("worker-1");

      await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200))
          .until(() -> q.inspector.depths().records() == 1 && q.isDead("a-sleeper"));

      Map<String, List<Integer>> attempts = q.log.attemptsById();
      assertEquals(101, attempts.size(), "every job ran: lost 0");
      attempts.forEach((id, runs) -> assertEquals(List.of(1), runs, id + " ran " + runs));
      assertTrue(q.recordField("a-sleeper", "lastError").startsWith("attempts exhausted; last delivery lost"),
          q.record("a-sleeper"));
      assertEquals(1, q.inspector.depths().dead(), "only the job that was running is charged");
      assertEquals(List.of(), q.invariant.breaches());
    }
  }

  /** The clients blocked in BLMOVE on this Redis now (a consumer idle on its ready list). */
  private static long blockedInBlmove(QueueUnderTest q) {
    Object list = q.redis.redis().sendCommand(Protocol.Command.CLIENT, "LIST");
    String text = list instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(list);
    return text.lines().filter(l -> l.contains(" cmd=blmove") && l.contains(" flags=b")).count();
  }
}
