package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.Claimed;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Jobs that wait for jobs through the producer API: chains, fan-ins and waits placed in
 * {@code waiting}, bad waits refused whole, results read by id, and plain jobs left as they were.
 */
class WaitingJobsTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final DelayQueue queue = new DelayQueue(broker, 1_048_576, 5);

  private static JobRequest job(String type) {
    return JobRequest.delay(type, Map.of(), Duration.ZERO);
  }

  private static JobRequest job(String type, JobOptions options) {
    return job(type).with(options);
  }

  /** Claims the next ready job, which must be {@code id}. */
  private Claimed claim(String id) {
    Optional<Claimed> c = broker.claims().claim("c1", 1.0, 30_000);
    assertTrue(c.isPresent() && c.get().id().equals(id), "claimed " + c + ", wanted " + id);
    return c.get();
  }

  /** Asserts {@code call} is refused naming each part, and that no job was stored by it. */
  private void assertRefused(Executable call, String... parts) {
    long before = probe.recordCount();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
    for (String part : parts) {
      assertTrue(e.getMessage().contains(part), "'" + e.getMessage() + "' should contain '" + part + "'");
    }
    assertEquals(before, probe.recordCount(), "nothing enqueued");
  }

  @Test
  void aChainOfThreeEnqueuesTheFirstAndPutsTheOthersInWaitingEachAfterTheOneBefore() {
    List<EnqueueResult> r = queue.chain(job("charge"), job("receipt"),
        job("thank_you", JobOptions.withId("thanks-1")));

    assertEquals(List.of(EnqueueResult.Status.ACCEPTED, EnqueueResult.Status.WAITING, EnqueueResult.Status.WAITING),
        r.stream().map(EnqueueResult::status).toList());
    assertEquals("thanks-1", r.get(2).id());
    assertEquals(List.of("ready"), probe.placesOf(r.get(0).id()));
    assertEquals(List.of("waiting"), probe.placesOf(r.get(1).id()));
    assertEquals(List.of("waiting"), probe.placesOf("thanks-1"));
    assertTrue(probe.rawRecord("thanks-1").contains(",\"w\":[\"" + r.get(1).id() + "\"],\"wf\":1"),
        probe.rawRecord("thanks-1"));
    assertTrue(probe.rawRecord(r.get(0).id()).contains(",\"wf\":1"), "the first step may be waited for");

    assertTrue(broker.outcomes().complete("c1", claim(r.get(0).id()).delivery(), false, "{\"charge\":\"ch_1\"}"));
    assertEquals(List.of("ready"), probe.placesOf(r.get(1).id()), "released by the step before");
    assertEquals(List.of("waiting"), probe.placesOf("thanks-1"));
  }

  @Test
  void aFanInPutsTheParentInWaitingUntilEveryChildEnded() {
    List<JobRequest> children = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      children.add(JobRequest.delay("reprice", Map.of("product", i), Duration.ZERO));
    }
    FanIn f = queue.fanIn(children, job("rebuild_index", JobOptions.withId("rebuild")));

    assertEquals(3, f.children().size());
    f.children().forEach(c -> assertEquals(EnqueueResult.Status.ACCEPTED, c.status()));
    assertEquals(EnqueueResult.Status.WAITING, f.parent().status());
    assertEquals(List.of("waiting"), probe.placesOf("rebuild"));
    for (int i = 0; i < 3; i++) {
      assertEquals(List.of("waiting"), probe.placesOf("rebuild"), "a child is pending");
      assertTrue(broker.outcomes().complete("c1", claim(f.children().get(i).id()).delivery(), false, null));
    }
    assertEquals(List.of("ready"), probe.placesOf("rebuild"));
  }

  @Test
  void aBadWaitIsRefusedNamingTheIdAndEnqueuesNothing() {
    queue.delay("plain", Map.of(), Duration.ofMinutes(1), JobOptions.withId("plain-1"));
    assertFalse(probe.rawRecord("plain-1").contains("\"wf\""), "a plain job's record is as before");

    assertRefused(() -> queue.delay("t", Map.of(), Duration.ZERO, JobOptions.defaults().waitFor("nope")),
        "job nope does not exist");
    assertRefused(() -> queue.delay("t", Map.of(), Duration.ZERO, JobOptions.withId("me").waitFor("me")),
        "job me cannot wait for itself");
    assertRefused(() -> queue.delay("t", Map.of(), Duration.ZERO, JobOptions.defaults().waitFor("plain-1")),
        "job plain-1 cannot be waited for");
    assertRefused(() -> queue.chain(job("a", JobOptions.withId("a-1")), job("b", JobOptions.defaults().waitFor("nope"))),
        "job nope does not exist");
    assertRefused(() -> queue.fanIn(List.of(job("a"), job("a", JobOptions.defaults().waitFor("plain-1"))), job("p")),
        "plain-1");
    assertRefused(() -> queue.schedule("t", Map.of(), Instant.now().plusSeconds(60),
        JobOptions.defaults().waitFor("plain-1")), "takes a delay, not a due instant");
    assertRefused(() -> queue.delay("t", Map.of(), Duration.ZERO, JobOptions.defaults().waitFor("bad id")),
        "waitFor: job id 'bad id' is not valid");
    assertRefused(() -> queue.delay("t", Map.of(), Duration.ZERO,
        JobOptions.withId("deb").ifPending(IfPending.PUSH_DUE).awaitable()), "ifPending PUSH_DUE cannot be used");
    assertEquals(1, probe.recordCount());
  }

  @Test
  void aDependencyThatAlreadyWentDeadFailsAWaiterWhosePolicyIsFailAndNotOneWhosePolicyIsRun() {
    queue.delay("charge", Map.of(), Duration.ZERO, JobOptions.withId("charge-1").awaitable());
    assertTrue(broker.outcomes().deadLetter("c1", claim("charge-1").delivery(), "card declined"));

    EnqueueResult failed = queue.delay("receipt", Map.of(), Duration.ZERO, JobOptions.defaults().waitFor("charge-1"));
    EnqueueResult run = queue.delay("ticket", Map.of(), Duration.ZERO,
        JobOptions.defaults().waitFor("charge-1").ifDependencyFails(DependencyFailure.RUN));
    EnqueueResult held = queue.delay("retry_later", Map.of(), Duration.ZERO,
        JobOptions.defaults().waitFor(List.of("charge-1")).ifDependencyFails(DependencyFailure.WAIT));

    assertEquals(EnqueueResult.Status.DEPENDENCY_FAILED, failed.status());
    assertFalse(failed.accepted() || failed.duplicate());
    assertEquals(List.of("dead"), probe.placesOf(failed.id()));
    assertTrue(probe.record(failed.id()).path("lastError").asText().contains("dependency charge-1 ended dead"));
    assertEquals(EnqueueResult.Status.ACCEPTED, run.status());
    assertEquals(EnqueueResult.Status.WAITING, held.status());
    assertEquals(List.of("waiting"), probe.placesOf(held.id()));
  }

  @Test
  void anAwaitableJobsResultIsReadByIdOnceItEnded() {
    record Charge(String charge, long cents) {}
    EnqueueResult r = queue.delay("charge", Map.of(), Duration.ZERO, JobOptions.defaults().awaitable());
    assertTrue(probe.rawRecord(r.id()).contains(",\"wf\":1"), probe.rawRecord(r.id()));
    assertFalse(probe.rawRecord(r.id()).contains("\"w\":"), "it waits for nothing");
    assertEquals(Optional.empty(), queue.result(r.id()), "not ended yet");

    assertTrue(broker.outcomes().complete("c1", claim(r.id()).delivery(), false, "{\"charge\":\"ch_1\",\"cents\":990}"));

    JobOutcome outcome = queue.result(r.id()).orElseThrow();
    assertEquals("done", outcome.outcome());
    assertEquals(new Charge("ch_1", 990), outcome.valueAs(Charge.class));
    assertEquals(990, outcome.value().orElseThrow().path("cents").asLong());
    assertTrue(outcome.endedAt().isAfter(Instant.now().minusSeconds(60)));
  }

  @Test
  void anEnqueueAllWithSomeWorkflowJobsSendsThemInOrderAndLeavesThePlainOnesPlain() {
    List<EnqueueResult> r = queue.enqueueAll(List.of(
        job("plain"),
        job("charge", JobOptions.withId("ch-2").awaitable()),
        job("receipt", JobOptions.defaults().waitFor("ch-2")),
        job("plain")));

    assertEquals(List.of(EnqueueResult.Status.ACCEPTED, EnqueueResult.Status.ACCEPTED, EnqueueResult.Status.WAITING,
        EnqueueResult.Status.ACCEPTED), r.stream().map(EnqueueResult::status).toList());
    assertFalse(probe.rawRecord(r.get(0).id()).contains("\"wf\""));
    assertFalse(probe.rawRecord(r.get(3).id()).contains("\"wf\""));
    assertTrue(probe.rawRecord("ch-2").contains(",\"wf\":1"));
    assertEquals(List.of("waiting"), probe.placesOf(r.get(2).id()));
  }

  @Test
  void aGeneratedIdThatMeetsAStoredJobIsSentAgainUnderANewOne() {
    queue.delay("t", Map.of(), Duration.ofMinutes(5), JobOptions.withId("taken"));
    java.util.Iterator<String> made = List.of("taken", "fresh-1").iterator();
    DelayQueue colliding = new DelayQueue(broker, 1_048_576, 5, made::next);

    EnqueueResult r = colliding.delay("t", Map.of("v", "mine"), Duration.ofMinutes(1), JobOptions.defaults().awaitable());

    assertEquals("fresh-1", r.id());
    assertEquals(EnqueueResult.Status.ACCEPTED, r.status());
    assertTrue(probe.rawRecord("fresh-1").contains(",\"wf\":1"));
    assertFalse(probe.rawRecord("taken").contains("\"wf\""), "the stored job is not this one's");
  }
}
