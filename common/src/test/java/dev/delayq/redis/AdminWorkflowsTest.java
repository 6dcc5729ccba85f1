package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the operator's side sees of workflows: a job waiting for others has its own place and
 * names what it waits for, a job that ended with a result tells it after its record is gone, and
 * the depths count the waiting jobs and the open batches.
 */
class AdminWorkflowsTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys).withLimits(Duration.ofHours(1), 1 << 20);
  private final Workflows flows = broker.workflows();
  private final Admin admin = broker.admin(3);

  private static Workflows.FlowJob job(String id, String batch, String policy, String... waits) {
    return job(id, batch, 0, policy, waits);
  }

  private static Workflows.FlowJob job(String id, String batch, long delayMs, String policy, String... waits) {
    String extra = (batch == null ? "" : ",\"b\":\"" + batch + "\"") + ",\"wf\":1";
    return new Workflows.FlowJob(new NewJob(id, JobRecord.newHead(QueueProbe.TYPE, 3, false, Map.of(), extra),
        "{}", delayMs, false), List.of(waits), policy);
  }

  private void runToEnd(String id, String result) {
    Claimed c = broker.claims().claim("c1", 1.0, 30_000).orElseThrow();
    assertEquals(id, c.id());
    assertTrue(broker.outcomes().complete("c1", c.delivery(), false, result));
  }

  @Test
  void aJobWaitingForOthersIsInPlaceWaitingAndNamesWhatItStillWaitsFor() {
    flows.enqueue(null, List.of(job("a", null, "fail"), job("b", null, "fail")));
    flows.enqueue(null, List.of(job("c", null, 90_000, "wait", "b", "a")));

    Admin.JobView c = admin.inspect("c").orElseThrow();
    assertEquals(Admin.State.WAITING, c.state());
    assertEquals(List.of("a", "b"), c.waiting().waitsFor());
    assertEquals("wait", c.waiting().ifDependencyFails());
    assertTrue(c.waiting().sinceMs() > 0);
    assertEquals(90_000, c.waiting().delayMs(), "due that long after the last of them ended");
    assertEquals(0, c.dueAt(), "no due time until it is released");
    assertEquals(QueueProbe.TYPE, c.type());

    runToEnd("a", null);
    assertEquals(List.of("b"), admin.inspect("c").orElseThrow().waiting().waitsFor(), "a ended: only b is left");
  }

  @Test
  void aJobThatEndedWithAResultTellsHowItEndedAndItsResultAfterItsRecordIsGone() {
    flows.enqueue(null, List.of(job("r", null, "fail")));
    runToEnd("r", "{\"charge\":\"ch_1\"}");

    Admin.JobView r = admin.inspect("r").orElseThrow();
    assertEquals(Admin.State.ENDED, r.state());
    assertEquals("done", r.outcome());
    assertNull(r.ended(), "an id enqueued without keepsId is not kept taken: only its result is kept");
    assertEquals("{\"charge\":\"ch_1\"}", r.result().json());
  }

  @Test
  void depthsCountWaitingJobsAndOpenBatchesAndOpenBatchesCarryTheirCounts() {
    flows.openBatch("b1");
    flows.enqueue("b1", List.of(job("m1", "b1", "fail"), job("m2", "b1", "fail")));
    flows.openBatch("b2");
    flows.enqueue(null, List.of(job("w", null, "fail", "m1")));

    Inspector.Depths d = admin.stats().depths();
    assertEquals(1, d.waiting());
    assertEquals(2, d.batchesOpen());
    assertEquals(2, d.ready());

    List<Workflows.Batch> open = admin.openBatches(10);
    assertEquals(List.of("b1", "b2"), open.stream().map(Workflows.Batch::id).toList());
    assertEquals(2, open.get(0).total());
    assertEquals(2, open.get(0).pending());
    assertEquals(1, admin.openBatches(1).size());
  }
}
