package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.Claimed;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Batches through the producer API: jobs added, closed with callbacks of which one fires once its
 * jobs ended, inspected and cancelled; a handle to an existing batch adds to it.
 */
class BatchApiTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final DelayQueue queue = new DelayQueue(broker, 1_048_576, 5);

  /** Claims the next ready job, which must be {@code id}, and ends it done. */
  private void runDone(String id) {
    Optional<Claimed> c = broker.claims().claim("c1", 1.0, 30_000);
    assertTrue(c.isPresent() && c.get().id().equals(id), "claimed " + c + ", wanted " + id);
    assertTrue(broker.outcomes().complete("c1", c.get().delivery(), false, null));
  }

  @Test
  void aBatchTakesJobsAndFiresItsSuccessCallbackOnceItsLastJobEndedDone() {
    Batch batch = queue.openBatch();
    EnqueueResult first = batch.add("reprice", Map.of("product", 1), Duration.ZERO);
    List<EnqueueResult> more = batch.addAll(List.of(JobRequest.delay("reprice", Map.of("product", 2), Duration.ZERO)));
    assertEquals(EnqueueResult.Status.ACCEPTED, first.status());
    assertTrue(probe.rawRecord(first.id()).contains(",\"b\":\"" + batch.id() + "\""), probe.rawRecord(first.id()));
    assertTrue(probe.rawRecord(first.id()).contains(",\"wf\":1"), probe.rawRecord(first.id()));

    BatchStatus open = queue.batchStatus(batch.id()).orElseThrow();
    assertEquals(BatchStatus.State.OPEN, open.state());
    assertEquals(2, open.total());
    assertEquals(2, open.pending());
    assertNull(open.closedAt());

    BatchStatus closed = batch.close(BatchCallback.of("rebuild_index", Map.of("all", true)).withId("rebuild-1"),
        BatchCallback.of("alert_ops", Map.of()).after(Duration.ofMinutes(5)));
    assertEquals(BatchStatus.State.CLOSED, closed.state());
    assertEquals("rebuild-1", closed.onSuccessId());
    assertNotNull(closed.onCompleteId(), "a generated callback id is known at close");
    assertNotNull(closed.closedAt());

    runDone(first.id());
    assertEquals(List.of(), probe.placesOf("rebuild-1"), "no callback while a job is pending");
    runDone(more.get(0).id());

    BatchStatus finished = queue.batchStatus(batch.id()).orElseThrow();
    assertEquals(BatchStatus.State.FINISHED, finished.state());
    assertEquals(2, finished.done());
    assertEquals(0, finished.pending());
    assertEquals("rebuild-1", finished.firedId());
    assertNotNull(finished.endedAt());
    assertEquals(List.of("ready"), probe.placesOf("rebuild-1"));
    assertEquals(List.of(), probe.placesOf(closed.onCompleteId()), "the complete callback does not fire after a success");
    assertEquals("rebuild_index", probe.record("rebuild-1").path("type").asText(), probe.rawRecord("rebuild-1"));
  }

  @Test
  void aBatchClosedTwiceIsRefusedAndAnEmptyOneFinishesAtItsClose() {
    Batch batch = queue.openBatch("nightly-2026-12-07");
    BatchStatus s = batch.close(BatchCallback.of("report", Map.of()), null);
    assertEquals(BatchStatus.State.FINISHED, s.state(), "no job to wait for");
    assertEquals(List.of("ready"), probe.placesOf(s.onSuccessId()));

    IllegalStateException e = assertThrows(IllegalStateException.class, () -> batch.close(null, null));
    assertTrue(e.getMessage().contains("nightly-2026-12-07"), e.getMessage());
    assertEquals(1, probe.recordCount(), "the callback alone, once");
  }

  @Test
  void aHandleToAnExistingBatchAddsToItAndABadOrUnknownBatchIsRefused() {
    Batch opened = queue.openBatch("b-handle");
    opened.add("reprice", Map.of(), Duration.ofMinutes(1));
    queue.batch("b-handle").add("reprice", Map.of(), Duration.ofMinutes(1));
    assertEquals(2, queue.batchStatus("b-handle").orElseThrow().total());

    assertThrows(IllegalStateException.class, () -> queue.openBatch("b-handle"), "an id is opened once");
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> queue.batch("has space"));
    assertTrue(bad.getMessage().contains("batch id 'has space'"), bad.getMessage());
    IllegalStateException unknown = assertThrows(IllegalStateException.class,
        () -> queue.batch("no-such-batch").add("reprice", Map.of(), Duration.ZERO));
    assertTrue(unknown.getMessage().contains("no-such-batch"), unknown.getMessage());
    assertEquals(Optional.empty(), queue.batchStatus("no-such-batch"));
    assertEquals(2, probe.recordCount());
  }

  @Test
  void aCancelledBatchWithdrawsItsPendingJobsAsksItsRunningOneToStopAndFiresNoCallback() {
    Batch batch = queue.openBatch();
    List<EnqueueResult> jobs = batch.addAll(List.of(
        JobRequest.delay("reprice", Map.of("n", 0), Duration.ofMinutes(10)).with(JobOptions.withId("m-0")),
        JobRequest.delay("reprice", Map.of("n", 1), Duration.ZERO),
        JobRequest.delay("reprice", Map.of("n", 2), Duration.ZERO),
        JobRequest.delay("reprice", Map.of("n", 3), Duration.ZERO).with(JobOptions.defaults().waitFor("m-0"))));
    assertEquals(EnqueueResult.Status.WAITING, jobs.get(3).status());
    // jobs of the batch that wait for jobs of the batch, two deep: a dependency's cancel must not
    // fail its waiter (dead, left behind) before the waiter is withdrawn itself
    List<JobRequest> waits = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      waits.add(JobRequest.delay("reprice", Map.of(), Duration.ofMinutes(10)).with(JobOptions.withId("d-" + i)));
      waits.add(JobRequest.delay("reprice", Map.of(), Duration.ZERO).with(JobOptions.withId("w-" + i).waitFor("d-" + i)));
      waits.add(JobRequest.delay("reprice", Map.of(), Duration.ZERO).with(JobOptions.withId("ww-" + i).waitFor("w-" + i)));
    }
    batch.addAll(waits);
    runDone(jobs.get(1).id());
    Optional<Claimed> running = broker.claims().claim("c1", 1.0, 30_000);
    assertEquals(jobs.get(2).id(), running.orElseThrow().id());
    BatchStatus closed = batch.close(BatchCallback.of("ok", Map.of()), BatchCallback.of("some_failed", Map.of()));

    BatchStatus cancelled = queue.cancelBatch(batch.id());

    assertEquals(BatchStatus.State.CANCELLED, cancelled.state());
    assertNotNull(cancelled.endedAt());
    assertEquals(1, cancelled.done());
    assertEquals(List.of(), probe.placesOf("m-0"));
    assertEquals(List.of(), probe.placesOf(jobs.get(3).id()), "the waiting job is withdrawn too");
    for (JobRequest w : waits) {
      assertEquals(List.of(), probe.placesOf(w.options().id()), w.options().id() + " is withdrawn, not failed");
    }
    assertEquals(List.of("inflight:c1"), probe.placesOf(jobs.get(2).id()), "a running job ends as its worker stops it");
    assertTrue(RedisFixture.get().redis().exists(keys.cancelRequest(jobs.get(2).id())), "its worker is asked to stop");
    assertEquals(List.of(), probe.placesOf(closed.onSuccessId()));
    assertEquals(List.of(), probe.placesOf(closed.onCompleteId()));
    assertEquals(1, probe.recordCount(), "only the running job is left, and no callback");

    assertTrue(broker.outcomes().complete("c1", running.get().delivery(), true, null));
    assertEquals(0, probe.recordCount(), "no job left behind once it stopped");
    assertEquals(List.of(), probe.placesOf(closed.onCompleteId()), "a cancelled batch fires nothing");
    assertThrows(IllegalStateException.class, () -> queue.cancelBatch(batch.id()), "cancelled once");
  }
}
