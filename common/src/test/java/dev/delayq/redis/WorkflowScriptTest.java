package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The workflow scripts (enqueueFlow, batch, complete, and the ends settled in deadLetter, cancel,
 * requeueInFlight, retryDead): a batch's callback is enqueued once, with its last job's end;
 * a waiting job is released when what it waits for ended, or ends dead by its policy; bad input
 * is refused with nothing written.
 */
class WorkflowScriptTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys).withLimits(Duration.ofHours(1), 1 << 20);
  private final QueueProbe probe = new QueueProbe(broker);
  private final Workflows flows = broker.workflows();

  private static String head(String batch, List<String> waits) {
    StringBuilder extra = new StringBuilder(",\"wf\":1");
    if (batch != null) {
      extra.append(",\"b\":\"").append(batch).append('"');
    }
    return JobRecord.newHead(QueueProbe.TYPE, 3, false, Map.of(), extra.toString());
  }

  private static Workflows.FlowJob job(String id, String batch, String policy, String... waits) {
    return new Workflows.FlowJob(new NewJob(id, head(batch, List.of(waits)), "{\"n\":1}", 0, false),
        List.of(waits), policy);
  }

  private static Workflows.Callback callback(String id) {
    return new Workflows.Callback(id, head(null, List.of()), "{\"cb\":true}", 0);
  }

  /** Claims the ready job {@code id} for {@code consumer}. */
  private Delivery claim(String consumer, String id) {
    Optional<Claimed> c = broker.claims().claim(consumer, 1.0, 30_000);
    assertTrue(c.isPresent() && c.get().id().equals(id), consumer + " claimed " + c);
    return c.get().delivery();
  }

  @Test
  void aBatchFiresItsSuccessCallbackOnceWithItsLastJobsEndAndAnEndSentAgainChangesNothing() {
    flows.openBatch("b1");
    List<Enqueued> r = flows.enqueue("b1", List.of(job("j1", "b1", "fail"), job("j2", "b1", "fail")));
    assertEquals(EnqueueCode.ACCEPTED, r.get(0).code());
    assertEquals(Workflows.Closed.CLOSED, flows.closeBatch("b1", callback("b1-ok"), callback("b1-some-dead")));

    Delivery d1 = claim("c1", "j1");
    assertTrue(broker.outcomes().complete("c1", d1, false, "{\"total\":7}"));
    assertFalse(broker.outcomes().complete("c1", d1, false, null), "the same delivery again is fenced");
    assertEquals("closed", flows.batch("b1").orElseThrow().state());
    assertNull(RedisFixture.get().redis().hget(keys.jobs(), "b1-ok"), "no callback while a job is pending");

    Delivery d2 = claim("c1", "j2");
    assertTrue(broker.outcomes().complete("c1", d2, false, null));

    Workflows.Batch b = flows.batch("b1").orElseThrow();
    assertEquals("finished", b.state());
    assertEquals(2, b.total());
    assertEquals(2, b.done());
    assertEquals(0, b.pending());
    assertEquals("b1-ok", b.firedId());
    assertEquals(List.of("ready"), probe.placesOf("b1-ok"));
    assertEquals(List.of(), probe.placesOf("b1-some-dead"), "the complete callback never fires after a success");
    assertEquals("{\"total\":7}", flows.result("j1").orElseThrow().json());
    assertEquals("done", flows.result("j2").orElseThrow().outcome());
    assertEquals(0, flows.openBatchCount());
  }

  @Test
  void aBatchWithADeadJobFiresItsCompleteCallbackAndARetriedDeadJobCountsAsPendingAgain() {
    flows.openBatch("b2");
    flows.enqueue("b2", List.of(job("k1", "b2", "fail"), job("k2", "b2", "fail")));
    flows.closeBatch("b2", callback("b2-ok"), callback("b2-done"));
    assertTrue(broker.outcomes().deadLetter("c1", claim("c1", "k1"), "boom"));
    assertEquals(1, flows.batch("b2").orElseThrow().dead());

    broker.retryDead(keys, List.of("k1"));
    assertEquals(0, flows.batch("b2").orElseThrow().dead(), "retried: pending again");
    assertEquals(2, flows.batch("b2").orElseThrow().pending());
    // the retried job went to the left of ready: k2 is claimed first
    assertTrue(broker.outcomes().deadLetter("c1", claim("c1", "k2"), "boom again"));
    assertTrue(broker.outcomes().deadLetter("c1", claim("c1", "k1"), "boom"));

    Workflows.Batch b = flows.batch("b2").orElseThrow();
    assertEquals("finished", b.state());
    assertEquals("b2-done", b.firedId());
    assertEquals(List.of("ready"), probe.placesOf("b2-done"));
    assertEquals(List.of(), probe.placesOf("b2-ok"));
  }

  @Test
  void aWaitingJobIsReleasedWhenItsDependencyEndsDoneAndSeesItsResult() {
    flows.enqueue(null, List.of(job("a", null, "fail")));
    List<Enqueued> r = flows.enqueue(null, List.of(job("b", null, "fail", "a")));
    assertEquals(EnqueueCode.WAITING, r.get(0).code());
    assertEquals(List.of("waiting"), probe.placesOf("b"));

    assertTrue(broker.outcomes().complete("c1", claim("c1", "a"), false, "{\"charge\":\"ch_1\"}"));

    assertEquals(List.of("ready"), probe.placesOf("b"));
    assertEquals("{\"charge\":\"ch_1\"}", flows.results(List.of("a")).get("a").json());
    assertFalse(RedisFixture.get().redis().exists(keys.waiters("a")));
    assertFalse(RedisFixture.get().redis().exists(keys.waitFor("b")));
  }

  @Test
  void aDeadDependencyFailsRunsOrHoldsTheWaitingJobAsItsPolicySays() {
    flows.enqueue(null, List.of(job("dep", null, "fail")));
    flows.enqueue(null, List.of(job("w-fail", null, "fail", "dep"), job("w-run", null, "run", "dep"),
        job("w-wait", null, "wait", "dep"), job("w-after-fail", null, "fail", "w-fail")));

    assertTrue(broker.outcomes().deadLetter("c1", claim("c1", "dep"), "boom"));

    assertEquals(List.of("dead"), probe.placesOf("w-fail"));
    assertTrue(probe.record("w-fail").path("lastError").asText().contains("dependency dep ended dead"));
    assertEquals(List.of("dead"), probe.placesOf("w-after-fail"), "a fail goes down the chain");
    assertEquals(List.of("ready"), probe.placesOf("w-run"));
    assertEquals(List.of("waiting"), probe.placesOf("w-wait"));

    // the operator retries the dependency; it ends done, and the held job goes on
    broker.retryDead(keys, List.of("dep"));
    Optional<Claimed> next = broker.claims().claim("c1", 1.0, 30_000);
    while (next.isPresent() && !next.get().id().equals("dep")) {
      assertTrue(broker.outcomes().complete("c1", next.get().delivery(), false, null));
      next = broker.claims().claim("c1", 1.0, 30_000);
    }
    assertTrue(broker.outcomes().complete("c1", next.orElseThrow().delivery(), false, null));
    assertEquals(List.of("ready"), probe.placesOf("w-wait"));
  }

  @Test
  void aWaitingJobCancelledLeavesEveryWaitSetAndItsBatchCountsIt() {
    flows.openBatch("b3");
    flows.enqueue(null, List.of(job("x", null, "fail")));
    flows.enqueue("b3", List.of(job("y", "b3", "fail", "x")));
    flows.closeBatch("b3", callback("b3-ok"), callback("b3-done"));

    assertTrue(broker.cancel("y"));

    assertEquals(List.of(), probe.placesOf("y"));
    assertFalse(RedisFixture.get().redis().exists(keys.waiters("x")));
    assertFalse(RedisFixture.get().redis().hexists(keys.waiting(), "y"));
    Workflows.Batch b = flows.batch("b3").orElseThrow();
    assertEquals(1, b.cancelled());
    assertEquals("b3-done", b.firedId(), "a cancelled job is not a success");
  }

  @Test
  void aCancelledBatchFiresNoCallbackAndHandsBackItsPendingJobs() {
    flows.openBatch("b4");
    flows.enqueue("b4", List.of(job("m1", "b4", "fail"), job("m2", "b4", "fail")));
    flows.closeBatch("b4", callback("b4-ok"), callback("b4-done"));

    List<String> pending = flows.cancelBatch("b4");
    assertEquals(2, pending.size());
    pending.forEach(id -> assertTrue(broker.cancel(id)));

    assertEquals("cancelled", flows.batch("b4").orElseThrow().state());
    assertEquals(0, probe.recordCount(), "no job, and no callback");
    assertEquals(0, flows.openBatchCount());
  }

  @Test
  void badInputIsRefusedWithAMessageThatNamesItAndNothingIsWritten() {
    flows.enqueue(null, List.of(job("ok", null, "fail")));
    broker.enqueue(QueueProbe.delayed("plain", "{}", 60_000));
    long records = probe.recordCount();

    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> flows.enqueue(null, List.of(job("n1", null, "fail", "nope")))).getMessage().contains("job nope does not exist"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> flows.enqueue(null, List.of(job("self", null, "fail", "self")))).getMessage().contains("cannot wait for itself"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> flows.enqueue(null, List.of(job("n2", null, "fail", "plain")))).getMessage().contains("cannot be waited for"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> flows.enqueue(null, List.of(job("c1", null, "fail", "c2"), job("c2", null, "fail", "c1"))))
        .getMessage().contains("comes later in the same call"));
    assertTrue(assertThrows(IllegalStateException.class,
        () -> flows.enqueue("no-such-batch", List.of(job("n3", "no-such-batch", "fail")))).getMessage().contains("does not exist"));
    flows.openBatch("twice");
    flows.closeBatch("twice", null, null);
    assertTrue(assertThrows(IllegalStateException.class, () -> flows.closeBatch("twice", null, null))
        .getMessage().contains("cannot be closed: it is finished"));
    assertEquals(records, probe.recordCount(), "nothing was enqueued by the refused calls");
  }
}
