package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobOptions;
import dev.delayq.redis.DelayedReads;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Cancelling running jobs through a real worker process with two consumers: a handler that checks
 * {@code isCancelled()} sees the cancel within 100 ms and its job ends as cancelled (gone, not
 * retried, not dead; its kept id and the counts say cancelled, not done or failed) while the job on the other consumer runs on undisturbed; a handler that
 * ignores the interruption is treated as one past its time limit: the worker exits 70 and the job
 * is taken back, charged, not lost.
 */
class CancelRunningJobTest {

  @Test
  void aCooperativeHandlerSeesTheCancelWithin100MsAndItsJobEndsCancelled() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    String seen = q.log.key() + ":seen";
    try (JvmProcesses processes = q.processes("cancelCooperative").with("DELAYQ_WORKER_THREADS", "2")) {
      processes.scheduler("scheduler");
      processes.worker("worker-1");
      await().atMost(30, TimeUnit.SECONDS).until(() -> q.broker.consumerRegistry().consumers().size() == 2);

      q.producer.delay("test_cancellable", q.payload("\"seen\":\"" + seen + "\",\"runMs\":20000"), Duration.ZERO,
          JobOptions.withId("long-1"));
      q.producer.delay("test_cancellable", q.payload("\"runMs\":1500"), Duration.ZERO, JobOptions.withId("other"));
      await().atMost(15, TimeUnit.SECONDS).until(() -> q.log.size() == 2);

      long asked = System.currentTimeMillis();
      assertEquals(DelayQueue.Cancel.INTERRUPTING, q.producer.cancelEvenIfRunning("long-1"));
      await().atMost(5, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(5))
          .until(() -> q.redis.redis().llen(seen) == 1);
      long seenAfter = Long.parseLong(q.redis.redis().lindex(seen, 0)) - asked;
      await().atMost(10, TimeUnit.SECONDS).until(() -> q.record("long-1") == null && q.record("other") == null);
      System.out.printf("cancel of a running job: its handler saw it %d ms after the cancel%n", seenAfter);

      assertTrue(seenAfter <= 100, "seen " + seenAfter + " ms after the cancel");
      assertFalse(q.isDead("long-1"));
      assertNull(new DelayedReads(q.redis.redis()).score(q.keys, "long-1"), "not retried");
      assertFalse(q.redis.redis().exists(q.keys.cancelRequest("long-1")), "the request is cleared");
      String ended = q.redis.redis().hget(q.keys.ended(), "long-1");
      assertTrue(ended != null && ended.startsWith("cancelled:"), "its kept id records cancelled: " + ended);
      assertTrue(q.redis.redis().hget(q.keys.ended(), "other").startsWith("done:"), "the other one is done");
      // the worker adds its counts once a second: cancelled, not failed
      await().atMost(5, TimeUnit.SECONDS)
          .until(() -> "1".equals(q.redis.redis().hget(q.keys.stats(), "count:cancelled:test_cancellable"))
              && "1".equals(q.redis.redis().hget(q.keys.stats(), "count:succeeded:test_cancellable")));
      assertNull(q.redis.redis().hget(q.keys.stats(), "count:failed:test_cancellable"), "not counted as failed");
      List<String> ran = q.log.runs().stream().map(RunLog.Run::id).toList();
      assertEquals(List.of("long-1", "other"), ran.stream().sorted().toList(), "each ran once: " + ran);
      assertTrue(q.log.runs().stream().allMatch(r -> r.tickMs() == -1), "no schedule made them: tickAt() is empty");
      assertEquals(List.of(), q.invariant.breaches());
    }
  }

  @Test
  void aHandlerThatIgnoresTheCancelIsTreatedAsPastItsTimeLimit() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    try (JvmProcesses processes = q.processes("cancelStubborn").with("DELAYQ_WORKER_THREADS", "2")
        .with("DELAYQ_WORKER_INTERRUPT_GRACE", "1s")) {
      processes.scheduler("scheduler");
      Process worker = processes.worker("worker-1");
      await().atMost(30, TimeUnit.SECONDS).until(() -> q.broker.consumerRegistry().consumers().size() == 2);

      q.producer.delay("test_hang", q.payload("\"spinMs\":30000"), Duration.ZERO, JobOptions.withId("stubborn"));
      await().atMost(15, TimeUnit.SECONDS).until(() -> q.log.size() == 1);

      assertEquals(DelayQueue.Cancel.INTERRUPTING, q.producer.cancelEvenIfRunning("stubborn"));

      assertTrue(worker.waitFor(15, TimeUnit.SECONDS), "the worker exits");
      assertEquals(70, worker.exitValue(), "as for a handler stuck past its time limit");
      await().atMost(10, TimeUnit.SECONDS).until(() -> q.redis.redis().lpos(q.keys.ready(), "stubborn") != null
          || new DelayedReads(q.redis.redis()).score(q.keys, "stubborn") != null || q.isDead("stubborn"));
      assertEquals("2", q.recordField("stubborn", "attempt"), "taken back, charged an attempt, not lost");
      assertEquals(List.of(), q.invariant.breaches());
    }
  }
}
