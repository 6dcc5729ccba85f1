package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.InvariantCheck.Breach;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * The invariant of workflows, checked ({@link InvariantCheck}) and repaired ({@code delayq
 * recover}, repairWorkflow.lua): each breach is made by hand from a healthy workflow, named by the
 * check, repaired by recover, and the check is clean after with the job where it belongs.
 */
class WorkflowCheckTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys).withLimits(Duration.ofHours(1), 1 << 20);
  private final UnifiedJedis redis = RedisFixture.get().redis();
  private final QueueProbe probe = new QueueProbe(broker);
  private final Workflows flows = broker.workflows();
  private final InvariantCheck invariant = broker.invariantCheck();
  private final Admin admin = broker.admin(3);

  private static Workflows.FlowJob job(String id, String batch, String policy, String... waits) {
    String extra = (batch == null ? "" : ",\"b\":\"" + batch + "\"") + ",\"wf\":1";
    return new Workflows.FlowJob(new NewJob(id, JobRecord.newHead(QueueProbe.TYPE, 3, false, Map.of(), extra),
        "{\"n\":1}", 0, false), List.of(waits), policy);
  }

  private static Workflows.Callback callback(String id) {
    return new Workflows.Callback(id, JobRecord.newHead(QueueProbe.TYPE, 3, false, Map.of(), ",\"wf\":1"),
        "{\"cb\":true}", 0);
  }

  /** A job that ended without its end being settled: its record and place gone, nothing told. */
  private void vanish(String id) {
    redis.lrem(keys.ready(), 0, id);
    redis.hdel(keys.jobs(), id);
  }

  @Test
  void aHealthyWorkflowChecksCleanAndRecoverChangesNothing() {
    flows.openBatch("open");
    flows.enqueue("open", List.of(job("o1", "open", "fail"), job("o2", "open", "fail")));
    flows.openBatch("closed");
    flows.enqueue("closed", List.of(job("c1", "closed", "fail")));
    flows.closeBatch("closed", callback("closed-ok"), null);
    flows.openBatch("done");
    flows.closeBatch("done", callback("done-ok"), null);
    flows.enqueue(null, List.of(job("dep", null, "fail"), job("after", null, "fail", "dep")));
    flows.enqueue(null, List.of(job("dead-dep", null, "fail"), job("held", null, "wait", "dead-dep")));
    redis.lrem(keys.ready(), 0, "dead-dep");
    redis.zadd(keys.dead(), 1, "dead-dep"); // dead: "held" stays for an operator, as its policy says
    assertEquals(List.of("waiting"), probe.placesOf("after"));
    assertEquals(List.of("ready"), probe.placesOf("done-ok"));

    assertEquals(List.of(), invariant.breaches());
    Admin.RecoverReport report = admin.recover();

    assertEquals(Admin.WorkflowRepairs.NONE, report.workflows());
    assertEquals(List.of("waiting"), probe.placesOf("after"));
    assertEquals(List.of("waiting"), probe.placesOf("held"));
    assertEquals("closed", flows.batch("closed").orElseThrow().state());
  }

  @Test
  void workflowsMovedByTheirOwnScriptsCheckCleanAtEveryStepThroughACancelHalfway() {
    flows.openBatch("bb");
    flows.enqueue("bb", List.of(job("k1", "bb", "fail"), job("k2", "bb", "fail"), job("k3", "bb", "fail")));
    flows.enqueue(null, List.of(job("w-fail", null, "fail", "k1"), job("w-wait", null, "wait", "k1"),
        job("w-run", null, "run", "k2")));
    flows.closeBatch("bb", callback("bb-ok"), callback("bb-some-dead"));
    assertEquals(List.of(), invariant.breaches());

    assertTrue(broker.outcomes().deadLetter("c1", claim("k1"), "boom"));
    assertEquals(List.of("dead"), probe.placesOf("w-fail"));
    assertEquals(List.of("waiting"), probe.placesOf("w-wait"));
    assertEquals(List.of(), invariant.breaches(), "a job held by a dead dependency under policy wait is no breach");

    assertTrue(broker.outcomes().complete("c1", claim("k2"), false, null));
    assertEquals(List.of("ready"), probe.placesOf("w-run"));
    assertEquals(List.of(), invariant.breaches());

    List<String> pending = flows.cancelBatch("bb");
    assertEquals(List.of("k3"), pending);
    pending.forEach(id -> assertTrue(broker.cancel(id)));
    assertEquals(List.of(), probe.placesOf("bb-ok"));
    assertEquals(List.of(), probe.placesOf("bb-some-dead"));
    assertEquals(List.of(), invariant.breaches());
    assertEquals(Admin.WorkflowRepairs.NONE, admin.recover().workflows());
  }

  /** Claims the next ready job for consumer c1, which must be {@code id}. */
  private Delivery claim(String id) {
    Claimed c = broker.claims().claim("c1", 1.0, 30_000).orElseThrow();
    assertEquals(id, c.id());
    return c.delivery();
  }

  @Test
  void aWaitingJobWhoseDependencyEndedUntoldIsNamedAndRecoverReleasesIt() {
    flows.enqueue(null, List.of(job("a", null, "fail"), job("b", null, "fail", "a")));
    vanish("a");

    List<Breach> breaches = invariant.breaches();

    assertEquals(List.of(new Breach("b", Breach.Kind.WAITING_RELEASABLE, List.of("a"))), breaches);
    assertEquals("b: waiting, but every job it waits for has ended (a): nothing will release it",
        breaches.get(0).toString());
    Admin.WorkflowRepairs repairs = admin.recover().workflows();
    assertEquals(1, repairs.released());
    assertEquals(List.of("b: released from waiting (every job it waited for had ended)"), repairs.repaired());
    assertEquals(List.of("ready"), probe.placesOf("b"));
    assertFalse(redis.exists(keys.waitFor("b")));
    assertFalse(redis.exists(keys.waiters("a")));
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void aWaitingJobThatWaitsForNothingIsNamedAndReleased() {
    flows.enqueue(null, List.of(job("p", null, "fail"), job("q", null, "fail", "p")));
    redis.del(keys.waitFor("q"));

    List<Breach> breaches = invariant.breaches();

    assertEquals(List.of(new Breach("q", Breach.Kind.WAITING_RELEASABLE, List.of())), breaches);
    assertEquals("q: waiting, but for no job: nothing will release it", breaches.get(0).toString());
    assertEquals(1, admin.recover().workflows().released());
    assertEquals(List.of("ready"), probe.placesOf("q"));
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void aWaitingJobWhoseDependencyWasCancelledUntoldEndsDeadAsItsPolicySays() {
    flows.enqueue(null, List.of(job("g", null, "fail"), job("f", null, "fail", "g"), job("r", null, "run", "g")));
    vanish("g");
    redis.hset(keys.results(), "g", "cancelled:1:");

    assertEquals(2, invariant.breaches().size());
    Admin.WorkflowRepairs repairs = admin.recover().workflows();

    assertEquals(1, repairs.failed());
    assertEquals(1, repairs.released());
    assertEquals(List.of("dead"), probe.placesOf("f"));
    assertTrue(probe.record("f").path("lastError").asText().contains("dependency g ended cancelled (delayq recover)"),
        probe.record("f").toString());
    assertEquals(List.of("ready"), probe.placesOf("r"), "policy run: it runs anyway");
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void aWaitingEntryWithoutARecordIsNamedAndRecoverRemovesItWithItsSets() {
    flows.enqueue(null, List.of(job("d1", null, "fail")));
    redis.hset(keys.waiting(), "ghost", "fail:0:1");
    redis.sadd(keys.waitFor("ghost"), "d1");
    redis.sadd(keys.waiters("d1"), "ghost");

    List<Breach> breaches = invariant.breaches();

    assertEquals(List.of(new Breach("ghost", Breach.Kind.WAITING_WITHOUT_RECORD, List.of("waiting"))), breaches);
    assertEquals("ghost: in waiting without a record in jobs: nothing can run it", breaches.get(0).toString());
    Admin.WorkflowRepairs repairs = admin.recover().workflows();
    assertEquals(1, repairs.forgotten());
    assertEquals(List.of("ghost: removed from waiting, with its wait sets (it had no record)"), repairs.repaired());
    assertFalse(redis.hexists(keys.waiting(), "ghost"));
    assertFalse(redis.exists(keys.waitFor("ghost")));
    assertFalse(redis.exists(keys.waiters("d1")));
    assertEquals(List.of("ready"), probe.placesOf("d1"));
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void aClosedBatchWithNothingPendingIsNamedAndRecoverFiresItsCallbackOnce() {
    flows.openBatch("bx");
    flows.enqueue("bx", List.of(job("m1", "bx", "fail")));
    flows.closeBatch("bx", callback("bx-ok"), callback("bx-some-dead"));
    // m1 ended and was counted, but the batch was never finished
    vanish("m1");
    redis.srem(keys.batchPending("bx"), "m1");
    redis.hincrBy(keys.batch("bx"), "done", 1);

    List<Breach> breaches = invariant.breaches();

    assertEquals(List.of(new Breach("bx", Breach.Kind.BATCH_NOT_FIRED, List.of())), breaches);
    assertEquals("batch bx: closed with no job pending, but its callback was never enqueued", breaches.get(0).toString());
    Admin.WorkflowRepairs repairs = admin.recover().workflows();
    assertEquals(1, repairs.batchesFinished());
    assertEquals(List.of("batch bx: finished: its callback bx-ok enqueued"), repairs.repaired());
    assertEquals("finished", flows.batch("bx").orElseThrow().state());
    assertEquals(List.of("ready"), probe.placesOf("bx-ok"));
    assertEquals(List.of(), probe.placesOf("bx-some-dead"));
    assertEquals(List.of(), invariant.breaches());
    assertEquals(Admin.WorkflowRepairs.NONE, admin.recover().workflows(), "a second recover finds nothing to do");
  }

  @Test
  void aBatchMemberLostUncountedIsNamedAndRecoverCountsItDeadWhichFinishesTheBatch() {
    flows.openBatch("by");
    flows.enqueue("by", List.of(job("n1", "by", "fail"), job("n2", "by", "fail")));
    flows.enqueue(null, List.of(job("after-n1", null, "fail", "n1"), job("held-n1", null, "wait", "n1")));
    flows.closeBatch("by", callback("by-ok"), callback("by-some-dead"));
    vanish("n1");

    List<Breach> breaches = invariant.breaches();

    // the job waiting for n1 shows too: n1 has no record, so it ended
    assertEquals(List.of(new Breach("after-n1", Breach.Kind.WAITING_RELEASABLE, List.of("n1")),
        new Breach("held-n1", Breach.Kind.WAITING_RELEASABLE, List.of("n1")),
        new Breach("n1", Breach.Kind.BATCH_MEMBER_LOST, List.of("by"))), breaches.stream()
        .sorted(java.util.Comparator.comparing(Breach::kind).thenComparing(Breach::id)).toList());
    assertEquals("n1: pending in batch by without a record: it ended uncounted, so the batch never finishes",
        breaches.stream().filter(b -> b.kind() == Breach.Kind.BATCH_MEMBER_LOST).findFirst().orElseThrow().toString());
    Admin.WorkflowRepairs repairs = admin.recover().workflows();
    assertEquals(1, repairs.membersCounted());
    assertEquals(List.of("dead"), probe.placesOf("after-n1"), "counted dead: the job waiting for it fails, by its policy");
    assertEquals(List.of("dead"), probe.placesOf("held-n1"), "policy wait: nothing is left to retry, so it fails too");
    assertTrue(probe.record("held-n1").path("lastError").asText().contains("dependency n1 ended dead, its record gone"),
        probe.record("held-n1").toString());
    Workflows.Batch b = flows.batch("by").orElseThrow();
    assertEquals(1, b.dead());
    assertEquals(1, b.pending());
    assertEquals(List.of(), invariant.breaches());

    vanish("n2");
    assertEquals(List.of(new Breach("n2", Breach.Kind.BATCH_MEMBER_LOST, List.of("by"))), invariant.breaches());
    repairs = admin.recover().workflows();

    assertEquals(List.of("n2: counted in batch by as ended dead (or as its kept result says it ended); the batch "
        + "finished: its callback by-some-dead enqueued"),
        repairs.repaired());
    assertEquals("finished", flows.batch("by").orElseThrow().state());
    assertEquals(List.of("ready"), probe.placesOf("by-some-dead"));
    assertEquals(List.of(), probe.placesOf("by-ok"));
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void aBatchMemberLostAfterItsResultWasKeptIsCountedAsItEnded() {
    flows.openBatch("bk");
    flows.enqueue("bk", List.of(job("r1", "bk", "fail")));
    flows.closeBatch("bk", callback("bk-ok"), callback("bk-some-dead"));
    vanish("r1");
    redis.hset(keys.results(), "r1", "done:1:{\"n\":1}");

    assertEquals(List.of(new Breach("r1", Breach.Kind.BATCH_MEMBER_LOST, List.of("bk"))), invariant.breaches());
    admin.recover();

    Workflows.Batch b = flows.batch("bk").orElseThrow();
    assertEquals(1, b.done());
    assertEquals("bk-ok", b.firedId(), "it ended done: the batch is a success");
    assertEquals(List.of("ready"), probe.placesOf("bk-ok"));
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void aWaitingJobInAnotherPlaceTooIsInSeveralPlacesAndRecoverNamesItWithoutRepairing() {
    flows.enqueue(null, List.of(job("s1", null, "fail"), job("s2", null, "fail", "s1")));
    redis.lpush(keys.ready(), "s2");

    assertEquals(List.of(new Breach("s2", Breach.Kind.SEVERAL_PLACES, List.of("ready", "waiting"))),
        invariant.breaches());
    Admin.WorkflowRepairs repairs = admin.recover().workflows();

    assertEquals(0, repairs.total());
    assertEquals(1, repairs.notRepaired().size());
    assertTrue(repairs.notRepaired().get(0).startsWith("s2: in ready, waiting at once: not repaired"),
        repairs.notRepaired().toString());
    assertEquals(List.of("ready", "waiting"), probe.placesOf("s2"));
  }

  @Test
  void aRepairWhoseBreachIsGoneChangesNothing() {
    flows.openBatch("bz");
    flows.enqueue("bz", List.of(job("z1", "bz", "fail"), job("z2", "bz", "fail", "z1")));
    WorkflowRepair repair = flows.repair();

    assertEquals(WorkflowRepair.Done.UNCHANGED, repair.release("z2", "test"), "z1 is pending");
    assertEquals(WorkflowRepair.Done.UNCHANGED, repair.forgetWaiting("z2"), "z2 has its record");
    assertEquals(WorkflowRepair.Done.UNCHANGED, repair.countLost("bz", "z1"), "z1 has its record");
    assertEquals(WorkflowRepair.Done.UNCHANGED, repair.finish("bz"), "bz is open");
    assertEquals(WorkflowRepair.Done.UNCHANGED, repair.release("nobody", "test"));

    assertEquals(List.of("waiting"), probe.placesOf("z2"));
    assertEquals(List.of("ready"), probe.placesOf("z1"));
    assertEquals(2, flows.batch("bz").orElseThrow().pending());
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void aWaitingKeyOfAnotherTypeIsNamedRatherThanFailingTheCheck() {
    redis.set(keys.waiting(), "not a hash");

    assertEquals(List.of(new Breach(keys.waiting(), Breach.Kind.WRONG_TYPE, List.of("string", "hash"))),
        invariant.breaches());
  }

  @Test
  void aRecordInWaitingOnlyIsNoOrphanAndRecoverLeavesIt() {
    flows.enqueue(null, List.of(job("x1", null, "fail"), job("x2", null, "fail", "x1")));

    assertEquals(OrphanRequeue.NOT_ORPHAN, admin.requeueOrphan("x2"), "waiting is a place");
    assertEquals(List.of("waiting"), probe.placesOf("x2"));
  }
}
