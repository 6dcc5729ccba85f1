package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.Batch;
import dev.delayq.BatchCallback;
import dev.delayq.BatchStatus;
import dev.delayq.DependencyFailure;
import dev.delayq.EnqueueResult;
import dev.delayq.FanIn;
import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Workflows with real worker JVMs killed with SIGKILL, and a ledger of every handler start: a
 * batch's callback runs exactly once, after its last job, however often its jobs ran; a chain's
 * last step runs once, after the retry of the step that crashed, and reads its result; a fan-in's
 * parent starts right after its last child; a batch cancelled halfway leaves nothing behind; a dead
 * dependency fails, runs or holds its waiting jobs as each one's policy says. (No
 * supervisor: the scheduler's recoverer takes a killed worker's jobs back once its heartbeat
 * expires.)
 */
class WorkflowCrashTest {
  private static final int JOBS = 10_000;

  private static JvmProcesses processes(QueueUnderTest q, String name) {
    return q.processes(name)
        .with("DELAYQ_WORKER_THREADS", "8")
        .with("DELAYQ_WORKER_HEARTBEAT_INTERVAL", "500ms")
        .with("DELAYQ_WORKER_HEARTBEAT_TTL", "2s")
        .with("DELAYQ_SCHEDULER_RECOVER_INTERVAL", "250ms");
  }

  @Test
  void aBatchsCallbackRunsExactlyOnceAfterItsLastJobThoughWorkersWereKilledTwiceEach() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    try (JvmProcesses processes = processes(q, "batchKilledWorkers")) {
      processes.scheduler("scheduler");
      Map<String, Process> workers = new HashMap<>();
      workers.put("worker-1", processes.worker("worker-1"));
      workers.put("worker-2", processes.worker("worker-2"));

      // one batch whose jobs all succeed, one where every tenth job goes dead (one attempt, fails);
      // the others keep their five attempts, so a kill only delays them
      Batch clean = q.producer.openBatch();
      Batch someDead = q.producer.openBatch();
      List<JobRequest> cleanJobs = new ArrayList<>(JOBS);
      List<JobRequest> mixedJobs = new ArrayList<>(JOBS);
      for (int i = 0; i < JOBS; i++) {
        cleanJobs.add(JobRequest.delay("test_flow", q.payload(), Duration.ofMillis(500 + i / 2)));
        mixedJobs.add(i % 10 == 0
            ? JobRequest.delay("test_flow", q.payload("\"fail\":true"), Duration.ofMillis(500 + i / 2))
                .with(JobOptions.defaults().maxAttempts(1))
            : JobRequest.delay("test_flow", q.payload(), Duration.ofMillis(500 + i / 2)));
      }
      java.util.Set<String> cleanIds = new java.util.HashSet<>();
      clean.addAll(cleanJobs).forEach(r -> cleanIds.add(r.id()));
      java.util.Set<String> mixedIds = new java.util.HashSet<>();
      someDead.addAll(mixedJobs).forEach(r -> mixedIds.add(r.id()));
      clean.close(BatchCallback.of("test_flow", q.payload()).withId("clean-success"),
          BatchCallback.of("test_flow", q.payload()).withId("clean-complete"));
      someDead.close(BatchCallback.of("test_flow", q.payload()).withId("mixed-success"),
          BatchCallback.of("test_flow", q.payload()).withId("mixed-complete"));

      for (String victim : List.of("worker-1", "worker-2", "worker-1", "worker-2")) {
        long ranBefore = q.log.size();
        await().atMost(60, TimeUnit.SECONDS).until(() -> q.log.size() > ranBefore + 2_500);
        JvmProcesses.sigkill(workers.get(victim));
        workers.put(victim, processes.worker(victim));
      }

      try {
        await().atMost(120, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(250))
            .until(() -> q.log.attemptsById().containsKey("clean-success")
                && q.log.attemptsById().containsKey("mixed-complete")
                && q.inspector.depths().records() == q.inspector.depths().dead());
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        throw new AssertionError("the batches did not finish: " + q.producer.batchStatus(clean.id()) + "; "
            + q.producer.batchStatus(someDead.id()) + "; depths " + q.inspector.depths() + "; breaches "
            + q.invariant.breaches(), e);
      }
      Thread.sleep(1_000); // a second run of a callback would show by now

      Map<String, List<Integer>> runs = q.log.attemptsById();
      assertTrue(runs.keySet().containsAll(cleanIds), "every job of the clean batch ran at least once");
      // a failing job (one attempt) may be charged by a kill between its start and its handler's
      // first line: then it is dead, charged, and never ran; every other mixed job ran
      for (String id : mixedIds) {
        if (!runs.containsKey(id)) {
          assertTrue(q.isDead(id) && q.recordField(id, "lastError").startsWith("attempts exhausted; last delivery lost"),
              id + " never ran and was not charged by a kill: " + q.record(id));
        }
      }
      assertEquals(List.of(1), runs.get("clean-success"), "the success callback ran exactly once");
      assertEquals(List.of(1), runs.get("mixed-complete"), "the complete callback ran exactly once");
      assertTrue(!runs.containsKey("clean-complete") && !runs.containsKey("mixed-success"),
          "the other callback of each batch never ran");
      // each callback started after the last start of its own batch's jobs
      long[] lastChild = new long[2];
      long[] callback = new long[2];
      for (RunLog.Run run : q.log.runs()) {
        if (run.id().equals("clean-success")) {
          callback[0] = run.startMs();
        } else if (run.id().equals("mixed-complete")) {
          callback[1] = run.startMs();
        } else {
          int batch = cleanIds.contains(run.id()) ? 0 : 1;
          lastChild[batch] = Math.max(lastChild[batch], run.startMs());
        }
      }
      assertTrue(callback[0] >= lastChild[0], "the clean batch's callback started before its last job");
      assertTrue(callback[1] >= lastChild[1], "the mixed batch's callback started before its last job");
      BatchStatus c = q.producer.batchStatus(clean.id()).orElseThrow();
      BatchStatus m = q.producer.batchStatus(someDead.id()).orElseThrow();
      assertEquals(BatchStatus.State.FINISHED, c.state());
      assertEquals(JOBS, c.done());
      assertEquals(JOBS / 10, m.dead(), "the failing tenth, and only it, went dead: " + m);
      assertEquals(JOBS - JOBS / 10, m.done(), m.toString());
      assertEquals(m.dead(), q.inspector.depths().dead());
      assertEquals(List.of(), q.invariant.breaches());
      long reruns = runs.values().stream().filter(a -> a.size() > 1).count();
      System.out.printf("batches of %d jobs, 4 kills: %d jobs ran twice; callbacks ran once each%n", JOBS, reruns);
    }
  }

  @Test
  void aChainsLastStepRunsOnceAfterTheRetryOfTheCrashedStepAndReadsItsResult() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    String seen = q.log.key() + ":seen";
    try (JvmProcesses processes = processes(q, "chainCrash")) {
      processes.scheduler("scheduler");
      Process worker = processes.worker("worker-1");
      List<EnqueueResult> steps = q.producer.chain(
          JobRequest.delay("test_flow", q.payload("\"seen\":\"" + seen + "\""), Duration.ZERO),
          JobRequest.delay("test_flow", q.payload("\"seen\":\"" + seen + "\",\"sleepMs\":20000"), Duration.ZERO),
          JobRequest.delay("test_flow", q.payload("\"seen\":\"" + seen + "\""), Duration.ZERO));
      String second = steps.get(1).id();
      String third = steps.get(2).id();

      await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.attemptsById().containsKey(second));
      JvmProcesses.sigkill(worker);
      processes.worker("worker-1");

      await().atMost(60, TimeUnit.SECONDS).until(() -> q.log.attemptsById().containsKey(third)
          && q.inspector.depths().records() == 0);
      Map<String, List<Integer>> runs = q.log.attemptsById();
      assertEquals(List.of(1, 2), runs.get(second), "the crashed step ran again");
      assertEquals(List.of(1), runs.get(third), "the last step ran once");
      List<String> lines = q.redis.redis().lrange(seen, 0, -1);
      assertEquals(third + " saw " + second + "={\"attempt\":2,\"by\":\"" + second + "\"}", lines.get(lines.size() - 1),
          "the last step read the result of the second step's retry");
      assertEquals(List.of(), q.invariant.breaches());
    }
  }

  @Test
  void aFanInsParentStartsRightAfterItsLastChild() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    try (JvmProcesses processes = processes(q, "fanIn")) {
      processes.scheduler("scheduler");
      processes.worker("worker-1");
      List<JobRequest> children = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        children.add(JobRequest.delay("test_flow", q.payload(), Duration.ofMillis(1_000 + i * 10L)));
      }
      FanIn f = q.producer.fanIn(children, JobRequest.delay("test_flow", q.payload(), Duration.ZERO));

      await().atMost(60, TimeUnit.SECONDS).until(() -> q.log.attemptsById().containsKey(f.parent().id()));
      long lastChild = 0;
      long parent = 0;
      for (RunLog.Run run : q.log.runs()) {
        if (run.id().equals(f.parent().id())) {
          parent = run.startMs();
        } else {
          lastChild = Math.max(lastChild, run.startMs());
        }
      }
      assertEquals(1_001, q.log.attemptsById().size(), "every child ran, then the parent");
      long after = parent - lastChild;
      System.out.printf("fan-in of 1,000 children over 10 s: the parent started %d ms after the last child%n", after);
      assertTrue(after >= 0 && after < 2_000, "the parent started " + after + " ms after its last child");
    }
  }

  @Test
  void aBatchCancelledHalfwayFiresNoCallbackAndLeavesNothingBehind() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    try (JvmProcesses processes = processes(q, "batchCancel")) {
      processes.scheduler("scheduler");
      processes.worker("worker-1");
      Batch batch = q.producer.openBatch();
      List<JobRequest> jobs = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        jobs.add(JobRequest.delay("test_flow", q.payload(), Duration.ofMillis(500 + i * 5L)));
      }
      batch.addAll(jobs);
      batch.close(BatchCallback.of("test_flow", q.payload()).withId("cancel-success"),
          BatchCallback.of("test_flow", q.payload()).withId("cancel-complete"));

      await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.size() >= 1_000);
      BatchStatus after = q.producer.cancelBatch(batch.id());

      assertEquals(BatchStatus.State.CANCELLED, after.state());
      await().atMost(30, TimeUnit.SECONDS).until(() -> q.inspector.depths().records() == 0);
      Thread.sleep(500);
      Map<String, List<Integer>> runs = q.log.attemptsById();
      assertTrue(!runs.containsKey("cancel-success") && !runs.containsKey("cancel-complete"), "no callback ran");
      assertTrue(runs.size() < 2_000, "the cancel withdrew the jobs not started: " + runs.size() + " ran");
      assertEquals(0, q.redis.redis().zcard(q.keys.batches()), "no open batch");
      assertEquals(List.of(), q.invariant.breaches());
    }
  }

  @Test
  void aDeadDependencyFailsRunsOrHoldsEachWaitingJobAsItsPolicySays() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    try (JvmProcesses processes = processes(q, "dependencyDead")) {
      processes.scheduler("scheduler");
      processes.worker("worker-1");
      String dep = q.producer.delay("test_flow", q.payload("\"fail\":true"), Duration.ofMillis(500),
          JobOptions.defaults().maxAttempts(1).awaitable()).id();
      String fails = q.producer.delay("test_flow", q.payload(), Duration.ZERO,
          JobOptions.defaults().waitFor(dep)).id();
      String runs = q.producer.delay("test_flow", q.payload(), Duration.ZERO,
          JobOptions.defaults().waitFor(dep).ifDependencyFails(DependencyFailure.RUN)).id();
      String holds = q.producer.delay("test_flow", q.payload(), Duration.ZERO,
          JobOptions.defaults().waitFor(dep).ifDependencyFails(DependencyFailure.WAIT)).id();

      await().atMost(30, TimeUnit.SECONDS).until(() -> q.isDead(dep) && q.isDead(fails)
          && q.log.attemptsById().containsKey(runs));
      Thread.sleep(500); // a run of the failed or the held job would show by now
      Map<String, List<Integer>> ran = q.log.attemptsById();
      assertEquals(List.of(1), ran.get(dep));
      assertEquals(List.of(1), ran.get(runs), "RUN: it ran anyway, once");
      assertTrue(!ran.containsKey(fails) && !ran.containsKey(holds), "FAIL and WAIT never ran: " + ran.keySet());
      assertTrue(q.recordField(fails, "lastError").contains("dependency " + dep + " ended dead"), q.record(fails));
      assertTrue(q.redis.redis().hexists(q.keys.waiting(), holds), "WAIT: it waits for an operator");
      assertEquals(List.of(), q.invariant.breaches());

      assertTrue(q.producer.cancel(holds), "the operator cancels the held job");
      assertTrue(!q.redis.redis().exists(q.keys.waiters(dep)), "nothing waits for the dead job any more");
      assertEquals(List.of(), q.invariant.breaches());
    }
  }
}
