package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.JobRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A worker stalls (SIGSTOP: a long GC pause, a frozen VM) past its heartbeat TTL while it holds a
 * prefetched backlog; the recoverer takes its jobs back; then it goes on (SIGCONT). Each of its
 * two consumers finishes the one job it had in hand (a duplicate, as at-least-once allows) and
 * runs none of the rest under their old deliveries. The same worker then claims those jobs again,
 * so a stale outcome would land on a fresh claim if fencing were by list membership: the jobs fail
 * on attempt 2 (the taken-back ones were charged one), and each must still reach its attempt 3,
 * which it would not if a stale acknowledgement had removed the fresh claim.
 */
class StalledWorkerTest {
  private static final int JOBS = 24;
  private static final int THREADS = 2;

  @Test
  void aStalledConsumerRunsAtMostTheJobInHandAndItsStaleOutcomesTouchNoFreshClaim() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    try (JvmProcesses processes = q.processes("stalledWorker")
        .with("DELAYQ_WORKER_THREADS", Integer.toString(THREADS))
        .with("DELAYQ_WORKER_PREFETCH", "8")
        .with("DELAYQ_WORKER_HEARTBEAT_INTERVAL", "500ms")
        .with("DELAYQ_WORKER_HEARTBEAT_TTL", "2s")
        .with("DELAYQ_SCHEDULER_RECOVER_INTERVAL", "250ms")
        .with("DELAYQ_RETRY_BASE_DELAY", "100ms")
        .with("DELAYQ_RETRY_JITTER", "0")) {
      List<JobRequest> jobs = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        jobs.add(JobRequest.delay("test_record", q.payload("\"sleepMs\":300,\"failOnAttempt\":2"), Duration.ZERO));
      }
      q.producer.enqueueAll(jobs);
      processes.scheduler("scheduler");
      Process worker = processes.worker("worker-1");
      await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.size() >= 3);

      JvmProcesses.sigstop(worker);
      try {
        await().atMost(30, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(100))
            .until(() -> q.inspector.depths().inFlight() == 0);
      } finally {
        JvmProcesses.sigcont(worker);
      }

      await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200))
          .until(() -> q.inspector.depths().records() == 0);
      Map<String, List<Integer>> attempts = q.log.attemptsById();
      assertEquals(JOBS, attempts.size(), "every job ran: lost 0");
      int duplicates = 0;
      for (Map.Entry<String, List<Integer>> job : attempts.entrySet()) {
        List<Integer> runs = job.getValue();
        long succeeded = runs.stream().filter(a -> a != 2).count();
        assertTrue(succeeded >= 1, job.getKey() + " never succeeded: " + runs);
        duplicates += (int) (succeeded - 1);
        if (runs.contains(2)) {
          // charged for the take-back, it failed on attempt 2: its retry must have landed
          assertEquals(List.of(1, 2, 3), runs, job.getKey() + ": the fresh delivery's outcome was lost");
        }
      }
      assertTrue(duplicates <= THREADS, "at most one duplicate per consumer, got " + duplicates + ": " + attempts);
      assertEquals(0, q.inspector.depths().dead());
      assertEquals(List.of(), q.invariant.breaches());
      assertTrue(worker.isAlive(), "the worker went on after the stall");
    }
  }
}
