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
 * Two scheduler processes on one queue, the lease holder kill -9'd while 2,000 delayed jobs fall
 * due over 3 s. The other is a hot standby: it forwards what the dead holder leaves overdue by
 * scheduler.standbyGrace (20 ms), long before the lease (10 s) lets it take over, so the jobs due
 * after the kill start about as promptly as those before it; and since every forward is one
 * atomic script, the ledger counts none lost and none run twice.
 */
class LeaderKilledTest {
  private static final int JOBS = 2_000;
  /** Without the hot standby the jobs due in the first 10 s after the kill would wait for this. */
  private static final String LEASE_TTL = "10s";
  /**
   * What a job due after the kill may start late: the grace plus a loaded machine's scheduling
   * noise (under a load average of 6 the worst was 59 ms), far below the lease it would wait out.
   */
  private static final long BOUND_MS = 1_000;

  @Test
  void jobsDueAfterTheLeaderIsKilledAreForwardedByTheStandbyOnceEachWithinTheGraceNotTheLeaseTtl()
      throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    try (JvmProcesses processes = q.processes("leaderKilled")
        .with("DELAYQ_SCHEDULER_LEASE_TTL", LEASE_TTL)
        .with("DELAYQ_WORKER_THREADS", "8")) {
      Process a = processes.scheduler("scheduler-a");
      Process b = processes.scheduler("scheduler-b");
      processes.worker("worker-1");
      await().atMost(30, TimeUnit.SECONDS).until(() -> q.redis.redis().get(q.keys.leader()) != null
          && q.broker.consumerRegistry().consumers().size() == 8);

      q.warmUp();

      List<JobRequest> jobs = new ArrayList<>(JOBS);
      String payload = q.payload();
      for (int i = 0; i < JOBS; i++) {
        jobs.add(JobRequest.delay("test_record", payload, Duration.ofMillis(1_500 + i * 3_000L / JOBS)));
      }
      long enqueuedAt = System.currentTimeMillis();
      q.producer.enqueueAll(jobs);
      await().atMost(10, TimeUnit.SECONDS).until(() -> System.currentTimeMillis() >= enqueuedAt + 2_500);
      String leader = q.redis.redis().get(q.keys.leader());
      JvmProcesses.sigkill(q.leaderOf(a, b));
      long killedAt = System.currentTimeMillis();

      await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(100))
          .until(() -> q.log.size() >= JOBS && q.inspector.depths().records() == 0);
      Thread.sleep(500); // a second run of any job would show up here

      Map<String, List<Integer>> attempts = q.log.attemptsById();
      assertEquals(JOBS, attempts.size(), "lost 0");
      assertEquals(JOBS, q.log.size(), "duplicates 0");
      assertEquals(List.of(), q.invariant.breaches());
      assertEquals(leader, q.redis.redis().get(q.keys.leader()),
          "the dead holder's lease has not lapsed yet: the standby forwarded without it");

      List<Long> before = new ArrayList<>();
      List<Long> after = new ArrayList<>();
      for (RunLog.Run r : q.log.runs()) {
        (r.dueMs() > killedAt ? after : before).add(r.latenessMs());
      }
      System.out.printf("leader kill -9 at +%d ms with %d jobs due before, %d after: late ms p50/p99/max"
          + " before %s, after %s (lease ttl %s)%n", killedAt - enqueuedAt, before.size(), after.size(),
          summary(before), summary(after), LEASE_TTL);
      assertTrue(after.size() > JOBS / 3, "the kill fell while jobs were due: " + after.size() + " after it");
      long worst = after.stream().mapToLong(Long::longValue).max().orElseThrow();
      assertTrue(worst <= BOUND_MS, "a job due after the kill started " + worst + " ms late (bound " + BOUND_MS
          + " ms; " + summary(after) + ")");
    }
  }

  private static String summary(List<Long> lateness) {
    List<Long> sorted = lateness.stream().sorted().toList();
    if (sorted.isEmpty()) {
      return "-";
    }
    return sorted.get(sorted.size() / 2) + "/" + sorted.get((int) Math.min(sorted.size() - 1, sorted.size() * 99L / 100))
        + "/" + sorted.get(sorted.size() - 1);
  }
}
