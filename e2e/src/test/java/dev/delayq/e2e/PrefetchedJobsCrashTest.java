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
 * Issue 8's first finding, as a new user meets it: 1 worker x 1 thread with the default prefetch
 * of 64, 101 due jobs with maxAttempts 1, the first of which sleeps 10 s; the worker is SIGKILLed
 * while it sleeps. Only that job paid for the crash: the 63 prefetched behind it went back
 * uncharged, and the other 100 all run once, at attempt 1. (No supervisor: the scheduler's
 * recoverer takes the dead consumer's jobs back once its heartbeat expires.)
 */
class PrefetchedJobsCrashTest {
  @Test
  void onlyTheJobThatWasRunningIsChargedAndThePrefetchedOnesRunOnceUncharged() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    try (JvmProcesses processes = q.processes("prefetchedJobsCrash")
        .with("DELAYQ_WORKER_THREADS", "1")
        .with("DELAYQ_WORKER_HEARTBEAT_INTERVAL", "500ms")
        .with("DELAYQ_WORKER_HEARTBEAT_TTL", "2s")
        .with("DELAYQ_SCHEDULER_RECOVER_INTERVAL", "250ms")) {
      List<JobRequest> jobs = new ArrayList<>();
      JobOptions once = JobOptions.defaults().maxAttempts(1);
      jobs.add(JobRequest.delay("test_record", q.payload("\"sleepMs\":10000"), Duration.ZERO).with(once));
      for (int i = 0; i < 100; i++) {
        jobs.add(JobRequest.delay("test_record", q.payload(), Duration.ZERO).with(once));
      }
      List<String> ids = q.producer.enqueueAll(jobs).stream().map(dev.delayq.EnqueueResult::id).toList();
      String sleeper = ids.get(0);
      processes.scheduler("scheduler");
      Process worker = processes.worker("worker-1");

      await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.size() >= 1);
      assertEquals(sleeper, q.log.runs().get(0).id(), "the sleeping job runs first");
      assertEquals(64, q.inspector.depths().inFlight(), "it holds its prefetch of 64");
      JvmProcesses.sigkill(worker);
      processes.worker("worker-1");

      await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200))
          .until(() -> q.inspector.depths().records() == 1 && q.isDead(sleeper));

      Map<String, List<Integer>> attempts = q.log.attemptsById();
      assertEquals(101, attempts.size(), "every job ran: lost 0");
      assertEquals(List.of(1), attempts.get(sleeper), "the sleeper ran once, and died with its worker");
      attempts.forEach((id, runs) -> assertEquals(List.of(1), runs, id + " ran " + runs));
      assertTrue(q.recordField(sleeper, "lastError").startsWith("attempts exhausted; last delivery lost"),
          q.record(sleeper));
      assertEquals("1", q.recordField(sleeper, "lost"));
      assertEquals(1, q.inspector.depths().dead(), "only the job that was running is charged");
      assertEquals(List.of(), q.invariant.breaches());
    }
  }
}
