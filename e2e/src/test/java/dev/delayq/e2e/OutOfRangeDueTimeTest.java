package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.JobRequest;
import dev.delayq.testing.OutOfRangeRecords;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * A delayed job whose due time is out of range, as a version without the range left it in Redis
 * (a delay of 60,000,000 days, or one that overflowed), never stops the scheduler process: the
 * jobs beside it run, each once, and it goes to dead with a reason.
 */
class OutOfRangeDueTimeTest {
  private final QueueUnderTest q = new QueueUnderTest();
  private JvmProcesses processes;

  @AfterEach
  void tearDown() throws InterruptedException {
    processes.close();
  }

  @Test
  void oneFarFutureAndOneOverflowedRecordDoNotHoldUpAHundredJobsDueNow(TestInfo info) {
    processes = q.processes(info.getTestMethod().orElseThrow().getName());
    processes.scheduler("scheduler");
    processes.worker("worker-1");
    OutOfRangeRecords.plantOverflowed(q.redis.redis(), q.keys, "overflowed", "test_record", q.payload());
    OutOfRangeRecords.plantFarFuture(q.redis.redis(), q.keys, "far", "test_record", q.payload());
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      jobs.add(JobRequest.delay("test_record", q.payload(), Duration.ofMillis(1000 + 10L * i)));
    }
    q.producer.enqueueAll(jobs);

    await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.size() >= 100 && q.isDead("far") && q.isDead("overflowed"));

    List<RunLog.Run> runs = q.log.runs();
    Set<String> ran = new HashSet<>();
    runs.forEach(r -> ran.add(r.id()));
    assertEquals(100, runs.size(), "each job ran once");
    assertEquals(100, ran.size(), "no job ran twice");
    assertTrue(!ran.contains("far") && !ran.contains("overflowed"), "the out-of-range jobs did not run");
    for (String id : List.of("far", "overflowed")) {
      assertTrue(q.recordField(id, "lastError").contains("is out of range: due times run from the epoch to "
          + "9999-12-31T23:59:59.999Z"), q.record(id));
    }
    await().atMost(5, TimeUnit.SECONDS).until(() -> q.inspector.depths().records() == 2);
    assertEquals(0, q.inspector.depths().delayed());
    assertEquals(List.of(), q.invariant.breaches());
  }
}
