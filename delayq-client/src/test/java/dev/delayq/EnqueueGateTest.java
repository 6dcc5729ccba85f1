package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A gate that holds every enqueue (as the Spring starter's does inside a transaction): each
 * enqueue method answers PENDING_COMMIT with the id the job will have, sends nothing, and the held
 * jobs go out later, in their order, as the calls would have sent them.
 */
class EnqueueGateTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final List<HeldJobs> held = new ArrayList<>();
  private final List<EnqueueResult> told = new ArrayList<>();

  @Test
  void everyEnqueueMethodIsHeldAndSentLaterInItsOrder() {
    try (DelayQueue queue = new DelayQueue(broker, 1 << 20, 5, (request, result) -> told.add(result), held::add)) {
      List<EnqueueResult> results = new ArrayList<>();
      results.add(queue.delay("order_close", Map.of("order", 1), Duration.ZERO));
      results.add(queue.schedule("order_close", Map.of("order", 2), Instant.EPOCH));
      results.addAll(queue.enqueueAll(List.of(JobRequest.delay("order_close", Map.of("order", 3), Duration.ZERO),
          JobRequest.delay("order_close", Map.of("order", 4), Duration.ZERO))));
      results.add(queue.enqueue(JobRequest.delay("order_close", Map.of("order", 5), Duration.ZERO)
          .with(JobOptions.withId("order-5"))));

      for (EnqueueResult r : results) {
        assertEquals(EnqueueResult.Status.PENDING_COMMIT, r.status());
        assertTrue(r.pendingCommit());
        assertFalse(r.duplicate(), "a held job is not a duplicate");
      }
      assertEquals(List.of(), probe.readyIds(), "nothing sent while held");
      assertEquals(List.of(), told, "the listener hears of a job once it is sent");
      assertEquals(4, held.size(), "one held batch per call");

      List<String> ids = results.stream().map(EnqueueResult::id).toList();
      assertEquals("order-5", ids.get(4));
      List<EnqueueResult> sent = HeldJobs.sendInOrder(held);
      assertEquals(ids, sent.stream().map(EnqueueResult::id).toList());
      assertTrue(sent.stream().allMatch(EnqueueResult::accepted), sent.toString());
      List<String> ready = new ArrayList<>(probe.readyIds());
      Collections.reverse(ready);  // pushed on the left
      assertEquals(ids, ready, "ready in the order of the calls");
      assertEquals(sent, told);
      assertThrows(IllegalStateException.class, () -> held.get(0).send(), "held jobs go out once");
      assertEquals(5, probe.readyIds().size());
    }
  }

  @Test
  void theDefaultGateSendsAtOnce() {
    try (DelayQueue queue = new DelayQueue(broker, 1 << 20, 5, null, EnqueueGate.NOW)) {
      EnqueueResult r = queue.delay("order_close", Map.of(), Duration.ZERO);
      assertEquals(EnqueueResult.Status.ACCEPTED, r.status());
      assertEquals(List.of(r.id()), probe.readyIds());
    }
  }

  @Test
  void workflowCallsGoOutAtOnceWhileTheGateHoldsPlainJobsOfTheSameCall() {
    try (DelayQueue queue = new DelayQueue(broker, 1 << 20, 5, null, held::add)) {
      List<EnqueueResult> chain = queue.chain(JobRequest.delay("charge", Map.of(), Duration.ZERO),
          JobRequest.delay("receipt", Map.of(), Duration.ZERO));
      List<EnqueueResult> mixed = queue.enqueueAll(List.of(
          JobRequest.delay("plain", Map.of(), Duration.ZERO),
          JobRequest.delay("receipt", Map.of(), Duration.ZERO).with(JobOptions.defaults().waitFor(chain.get(1).id()))));
      Batch batch = queue.openBatch();
      batch.add("reprice", Map.of(), Duration.ZERO);

      assertEquals(EnqueueResult.Status.ACCEPTED, chain.get(0).status());
      assertEquals(EnqueueResult.Status.WAITING, chain.get(1).status());
      assertEquals(EnqueueResult.Status.PENDING_COMMIT, mixed.get(0).status());
      assertEquals(EnqueueResult.Status.WAITING, mixed.get(1).status());
      assertEquals(List.of("waiting"), probe.placesOf(mixed.get(1).id()));
      assertEquals(1, queue.batchStatus(batch.id()).orElseThrow().total());
      assertEquals(1, held.size(), "only the plain job is held");
      assertEquals(List.of(mixed.get(0).id()), held.get(0).ids());
    }
  }
}
