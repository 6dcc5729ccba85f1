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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Failures a worker must survive without losing a job or a thread: retries that end in success,
 * a handler whose settings throw, and a record no script can write back. Real scheduler and
 * worker JVMs; each run is counted in the ledger the test handlers write.
 */
class JobFailuresTest {
  private QueueUnderTest q;
  private JvmProcesses processes;
  private Process worker;

  @BeforeEach
  void start(TestInfo info) {
    q = new QueueUnderTest();
    processes = q.processes("jobFailures-" + info.getTestMethod().orElseThrow().getName())
        .with("DELAYQ_RETRY_JITTER", "0")
        .with("DELAYQ_RETRY_BASE_DELAY", "50ms")
        .with("DELAYQ_WORKER_THREADS", "4");
    processes.scheduler("scheduler");
    worker = processes.worker("worker-1");
  }

  @AfterEach
  void stop() throws InterruptedException {
    processes.close();
  }

  @Test
  void jobsThatFailTwiceAndThenSucceedRunExactlyThreeAttemptsEach() {
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      jobs.add(JobRequest.delay("test_fail", q.payload("\"succeedOn\":3"), Duration.ZERO));
    }
    q.producer.enqueueAll(jobs);

    await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200))
        .until(() -> q.inspector.depths().records() == 0);

    Map<String, List<Integer>> attempts = q.log.attemptsById();
    assertEquals(100, attempts.size(), "every job ran: lost 0");
    attempts.forEach((id, runs) -> assertEquals(List.of(1, 2, 3), runs, id + ": exactly 3 attempts, in order"));
    assertEquals(0, q.inspector.depths().dead());
    assertEquals(List.of(), q.invariant.breaches());
  }

  @Test
  void aHandlerWhoseTimeLimitThrowsHasItsJobRetriedWithThatReasonAndTheWorkerGoesOn() {
    String broken = q.producer.delay("test_bad_limit", q.payload(), Duration.ZERO,
        JobOptions.defaults().maxAttempts(2)).id();
    List<JobRequest> others = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      others.add(JobRequest.delay("test_record", q.payload(), Duration.ofMillis(i * 10L)));
    }
    q.producer.enqueueAll(others);

    await().atMost(30, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(100))
        .until(() -> q.isDead(broken) && q.inspector.depths().records() == 1);

    String error = q.recordField(broken, "lastError");
    assertTrue(error.startsWith("attempt 2/2: failed outside the handler: java.lang.IllegalStateException: "
        + "limits.properties is missing"), error);
    assertEquals("2", q.recordField(broken, "attempt"), "retried once, by the retry policy");
    Map<String, List<Integer>> attempts = q.log.attemptsById();
    assertEquals(50, attempts.size(), "the other jobs all ran; the broken one never reached its handler");
    attempts.forEach((id, runs) -> assertEquals(List.of(1), runs, id));
    assertTrue(worker.isAlive(), "its consumers went on");
    assertEquals(List.of(), q.invariant.breaches());
  }

  @Test
  void aRecordNoScriptCanWriteBackEndsInDeadWithTheReasonAndNothingIsLeftNowhere() {
    // cjson reads 1e999 as infinity and cannot write it back: every script that rewrote this
    // record used to fail half-way, after removing its id
    String raw = "{\"type\":\"test_record\",\"maxAttempts\":1e999,\"attempt\":1,\"createdAt\":1,\"dueAt\":1,"
        + "\"payload\":" + q.payload() + "}";
    q.redis.redis().hset(q.keys.jobs(), "unencodable", raw);
    q.redis.redis().lpush(q.keys.ready(), "unencodable");
    String good = q.producer.delay("test_record", q.payload(), Duration.ZERO).id();

    await().atMost(30, TimeUnit.SECONDS).until(() -> q.isDead("unencodable") && q.record(good) == null);

    assertEquals(raw, q.recordField("unencodable", "malformed"), "kept verbatim for inspection");
    String error = q.recordField("unencodable", "lastError");
    assertTrue(error.contains("1e999") && error.contains("the record cannot be written back"), error);
    assertEquals(Map.of(good, List.of(1)), q.log.attemptsById());
    assertEquals(List.of(), q.invariant.breaches(), "delayq check stays clean");
  }
}
