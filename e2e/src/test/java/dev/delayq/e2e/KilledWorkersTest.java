package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.JobRequest;
import dev.delayq.process.ChildEnvironment;
import dev.delayq.redis.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The worst pitfall of a delayed queue, made impossible: workers SIGKILLed mid-job lose nothing. 10,000
 * jobs due over 10 s, two worker JVMs, one of them killed twice while running (and restarted,
 * as the supervisor would). No supervisor here: the scheduler's recoverer takes the killed
 * consumers' jobs back once their heartbeat expires.
 */
class KilledWorkersTest {
  private static final int JOBS = 10_000;

  @Test
  void sigkilledWorkersLoseNoJobAndOnlyInFlightJobsRunTwice() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    try (JvmProcesses processes = q.processes("sigkilledWorkers")
        .with("DELAYQ_WORKER_THREADS", "8")
        .with("DELAYQ_WORKER_HEARTBEAT_INTERVAL", "500ms")
        .with("DELAYQ_WORKER_HEARTBEAT_TTL", "2s")
        .with("DELAYQ_SCHEDULER_RECOVER_INTERVAL", "250ms")) {
      processes.scheduler("scheduler");
      Process steady = processes.worker("worker-1");
      Process victim = processes.worker("worker-2");

      List<JobRequest> jobs = new ArrayList<>(JOBS);
      String payload = q.payload("\"sleepMs\":1");
      for (int i = 0; i < JOBS; i++) {
        jobs.add(JobRequest.delay("test_record", payload, Duration.ofMillis(1000 + i)));
      }
      q.producer.enqueueAll(jobs);

      Set<String> inFlightAtKills = new HashSet<>();
      for (int kill = 1; kill <= 2; kill++) {
        long ranBefore = q.log.size();
        await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.size() > ranBefore + 2_000);
        long pid = victim.pid();
        JvmProcesses.sigkill(victim);
        inFlightAtKills.addAll(inFlightOf(q, ChildEnvironment.consumerPrefix("worker-2", ChildEnvironment.host(Map.of()), pid)));
        victim = processes.worker("worker-2");
      }

      await().atMost(90, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(250))
          .until(() -> q.inspector.depths().records() == 0);
      assertTrue(steady.isAlive(), "the steady worker kept running");

      Map<String, Integer> runsPerJob = new HashMap<>();
      for (RunLog.Run run : q.log.runs()) {
        runsPerJob.merge(run.id(), 1, Integer::sum);
      }
      assertEquals(JOBS, runsPerJob.size(), "every job ran at least once");
      runsPerJob.forEach((id, runs) -> {
        if (runs > 1) {
          assertTrue(inFlightAtKills.contains(id),
              id + " ran " + runs + " times but was not in flight at a kill");
        }
      });
      assertEquals(0, q.inspector.depths().dead());
      assertEquals(List.of(), q.invariant.breaches());
    }
  }

  /** The ids in the in-flight lists of the consumers whose id starts with {@code prefix}. */
  private static Set<String> inFlightOf(QueueUnderTest q, String prefix) {
    Set<String> ids = new HashSet<>();
    for (String consumer : q.broker.consumerRegistry().consumers()) {
      if (consumer.startsWith(prefix)) {
        q.redis.redis().lrange(q.keys.inFlight(consumer), 0, -1).forEach(d -> ids.add(Delivery.idOf(d)));
      }
    }
    return ids;
  }
}
