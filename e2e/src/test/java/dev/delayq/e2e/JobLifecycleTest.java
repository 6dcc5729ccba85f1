package dev.delayq.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.awaitility.Awaitility.await;

import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** A job's life through real scheduler and worker processes: order, retries, limits, drain. */
class JobLifecycleTest {
  private QueueUnderTest q;
  private JvmProcesses processes;

  @BeforeEach
  void setUp(TestInfo info) {
    q = new QueueUnderTest();
    processes = q.processes(info.getTestMethod().orElseThrow().getName())
        .with("DELAYQ_RETRY_JITTER", "0")
        .with("DELAYQ_RETRY_BASE_DELAY", "200ms");
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    processes.close();
  }

  @Test
  void jobsRunInDueOrderAndNeverEarly() {
    processes.with("DELAYQ_WORKER_THREADS", "1");
    processes.scheduler("scheduler");
    processes.worker("worker-1");
    List<JobRequest> jobs = new ArrayList<>();
    Random random = new Random(7);
    for (int i = 0; i < 30; i++) {
      jobs.add(JobRequest.delay("test_record", q.payload(),
          Duration.ofMillis(500 + random.nextInt(2000))));
    }
    Collections.shuffle(jobs, random);
    q.producer.enqueueAll(jobs);

    await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.size() == 30);
    List<RunLog.Run> runs = q.log.runs();
    for (int i = 0; i < runs.size(); i++) {
      RunLog.Run run = runs.get(i);
      assertTrue(run.startMs() >= run.dueMs(), run + " started before it was due");
      if (i > 0) {
        assertTrue(run.dueMs() >= runs.get(i - 1).dueMs(), run + " ran before " + runs.get(i - 1));
      }
    }
    await().atMost(5, TimeUnit.SECONDS).until(() -> q.inspector.depths().records() == 0);
    assertEquals(List.of(), q.invariant.breaches());
  }

  @Test
  void cancelledJobNeverRuns() {
    processes.scheduler("scheduler");
    processes.worker("worker-1");
    String cancelled = q.producer.delay("test_record", q.payload(), Duration.ofMillis(1500)).id();
    String kept = q.producer.delay("test_record", q.payload(), Duration.ofMillis(1500)).id();

    assertTrue(q.producer.cancel(cancelled));
    await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.size() >= 1);
    assertEquals(List.of(kept), ids(q.log.runs()));
    assertNull(q.record(cancelled));
    assertFalse(q.producer.cancel(cancelled), "a second cancel finds nothing");
  }

  @Test
  void failingJobIsRetriedWithGrowingDelaysThenDeadWithItsLastError() {
    processes.scheduler("scheduler");
    processes.worker("worker-1");
    String id = q.producer.delay("test_fail", q.payload(), Duration.ZERO,
        JobOptions.defaults().maxAttempts(4)).id();

    await().atMost(30, TimeUnit.SECONDS).until(() -> q.isDead(id));
    List<RunLog.Run> runs = q.log.runs();
    assertEquals(List.of(1, 2, 3, 4), runs.stream().map(RunLog.Run::attempt).toList());
    // backoff 200 ms x 2^(n-1) without jitter: 200, 400, 800 ms between attempts
    for (int n = 1; n < runs.size(); n++) {
      long gap = runs.get(n).startMs() - runs.get(n - 1).startMs();
      assertTrue(gap >= 200L << (n - 1), "wait before attempt " + (n + 1) + " was " + gap + " ms");
    }
    assertEquals("4", q.recordField(id, "attempt"));
    assertContains(q.recordField(id, "lastError"),
        "attempt 4/4: java.lang.IllegalStateException: payment provider unavailable (attempt 4)");
    assertEquals(List.of(), q.invariant.breaches());
  }

  @Test
  void handlerRescheduleRunsTheJobAgainWithAttemptOne() {
    processes.scheduler("scheduler");
    processes.worker("worker-1");
    String id = q.producer.delay("test_reschedule", q.payload("\"times\":3,\"everyMs\":300"),
        Duration.ZERO).id();

    await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.size() == 3 && q.record(id) == null);
    List<RunLog.Run> runs = q.log.runs();
    assertEquals(List.of(1, 1, 1), runs.stream().map(RunLog.Run::attempt).toList());
    assertEquals(List.of(id, id, id), ids(runs));
    assertTrue(runs.get(1).startMs() - runs.get(0).startMs() >= 300, "second run came too soon");
    assertTrue(runs.get(2).startMs() - runs.get(1).startMs() >= 300, "third run came too soon");
  }

  @Test
  void unknownTypeAndMalformedRecordGoToDeadWithTheReason() {
    processes.with("DELAYQ_QUEUE_HANDLER_WAIT", "1s"); // a type no worker has waits this long for one
    processes.scheduler("scheduler");
    processes.worker("worker-1");
    String unknown = q.producer.delay("no_such_type", "{}", Duration.ZERO).id();
    q.redis.redis().hset(q.keys.jobs(), "broken-1", "{not json");
    q.redis.redis().lpush(q.keys.ready(), "broken-1");

    await().atMost(30, TimeUnit.SECONDS).until(() -> q.isDead(unknown) && q.isDead("broken-1"));
    assertContains(q.recordField(unknown, "lastError"), "no live worker had a handler for type 'no_such_type' for 1s");
    assertContains(q.recordField("broken-1", "lastError"), "malformed");
    assertEquals("{not json", q.recordField("broken-1", "malformed"));
    assertEquals(List.of(), q.invariant.breaches());
  }

  @Test
  void handlerPastItsTimeLimitIsInterruptedAndTheWorkerGoesOn() {
    processes.with("DELAYQ_WORKER_JOB_TIMEOUT", "300ms");
    processes.scheduler("scheduler");
    Process worker = processes.worker("worker-1");
    String slow = q.producer.delay("test_record", q.payload("\"sleepMs\":20000"), Duration.ZERO,
        JobOptions.defaults().maxAttempts(1)).id();

    await().atMost(30, TimeUnit.SECONDS).until(() -> q.isDead(slow));
    assertContains(q.recordField(slow, "lastError"), "timed out after 300 ms");
    String next = q.producer.delay("test_record", q.payload(), Duration.ZERO).id();
    await().atMost(10, TimeUnit.SECONDS).until(() -> q.record(next) == null);
    assertTrue(worker.isAlive());
  }

  @Test
  void handlerIgnoringInterruptionMakesTheWorkerExit70AndItsJobIsPutBack() throws Exception {
    processes.with("DELAYQ_WORKER_JOB_TIMEOUT", "300ms").with("DELAYQ_WORKER_INTERRUPT_GRACE", "300ms")
        .with("DELAYQ_WORKER_DRAIN_TIMEOUT", "1s");
    processes.scheduler("scheduler");
    Process worker = processes.worker("worker-1");
    String id = q.producer.delay("test_hang", q.payload("\"spinMs\":60000"), Duration.ZERO).id();

    assertTrue(worker.waitFor(30, TimeUnit.SECONDS), "worker exited");
    assertEquals(70, worker.exitValue());
    assertEquals(List.of(id), q.redis.redis().lrange(q.keys.ready(), 0, -1));
    assertEquals("2", q.recordField(id, "attempt"));
    assertEquals("1", q.recordField(id, "lost"));
    assertContains(q.recordField(id, "lastError"), "a handler ignored its interruption");
  }

  @Test
  void sigtermDrainsAWorkerWithAJobInFlight() throws Exception {
    processes.scheduler("scheduler");
    Process worker = processes.worker("worker-1");
    String id = q.producer.delay("test_record", q.payload("\"sleepMs\":2000"), Duration.ZERO).id();
    await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.size() == 1);

    JvmProcesses.sigterm(worker);
    assertTrue(worker.waitFor(20, TimeUnit.SECONDS));
    assertEquals(0, worker.exitValue());
    assertNull(q.record(id), "acknowledged before exit");
    assertEquals(0, q.inspector.depths().inFlight());
    assertEquals(1, q.log.size());
  }

  @Test
  void twoSchedulersAtOnceRunEachJobOnceAndTheStandbyTakesOver() throws Exception {
    processes.with("DELAYQ_WORKER_THREADS", "4");
    Map<String, Process> schedulers = Map.of(
        "scheduler-a", processes.scheduler("scheduler-a"),
        "scheduler-b", processes.scheduler("scheduler-b"));
    processes.worker("worker-1");
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      jobs.add(JobRequest.delay("test_record", q.payload(), Duration.ofMillis(200 + i * 4)));
    }
    q.producer.enqueueAll(jobs);
    await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.size() >= 500);

    String leader = q.redis.redis().get(q.keys.leader());
    Process leaderProcess = schedulers.get(leader.substring(0, leader.indexOf('@')));
    JvmProcesses.sigterm(leaderProcess);
    assertTrue(leaderProcess.waitFor(10, TimeUnit.SECONDS));
    assertEquals(0, leaderProcess.exitValue());
    String after = q.producer.delay("test_record", q.payload(), Duration.ofMillis(300)).id();
    await().atMost(30, TimeUnit.SECONDS).until(() -> q.record(after) == null);

    List<String> ran = ids(q.log.runs());
    assertEquals(501, ran.size());
    assertEquals(501, new HashSet<>(ran).size(), "a job ran twice");
    assertEquals(List.of(), q.invariant.breaches());
  }

  private static List<String> ids(List<RunLog.Run> runs) {
    return runs.stream().map(RunLog.Run::id).toList();
  }

  private static void assertContains(String text, String... parts) {
    for (String part : parts) {
      assertTrue(text != null && text.contains(part), "expected <" + part + "> in: " + text);
    }
  }
}
