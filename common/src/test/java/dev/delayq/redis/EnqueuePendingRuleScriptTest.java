package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** enqueue.lua's if-pending options: an enqueue of an id that is still pending replaces or debounces it. */
class EnqueuePendingRuleScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  private static NewJob job(String id, String payload, long delayMs, PendingRule ifPending) {
    return new NewJob(id, QueueProbe.head(QueueProbe.TYPE, 5), payload, delayMs, false, ifPending);
  }

  @Test
  void keepLeavesTheExistingJobAsItIs() {
    long due = broker.enqueue(job("j1", "{\"v\":1}", 60_000, PendingRule.KEEP)).value();
    String record = probe.rawRecord("j1");

    Enqueued again = broker.enqueue(job("j1", "{\"v\":2}", 5_000, PendingRule.KEEP));

    assertEquals(new Enqueued(EnqueueCode.PENDING, -1), again);
    assertEquals(record, probe.rawRecord("j1"));
    assertEquals(due, probe.dueAt("j1"));
  }

  @Test
  void replacePayloadKeepsTheDueTime() {
    long due = broker.enqueue(job("j1", "{\"v\":1}", 60_000, PendingRule.KEEP)).value();

    Enqueued r = broker.enqueue(job("j1", "{\"v\":2}", 5_000, PendingRule.REPLACE_PAYLOAD));

    assertEquals(new Enqueued(EnqueueCode.CHANGED, due), r);
    assertTrue(probe.rawRecord("j1").endsWith(",\"p\":{\"v\":2}}"));
    assertEquals(due, probe.dueAt("j1"));
  }

  @Test
  void pushDueMovesTheDueTimeAndKeepsThePayload() {
    broker.enqueue(job("j1", "{\"v\":1}", 5_000, PendingRule.KEEP));
    long t0 = probe.redisNowMs();

    Enqueued r = broker.enqueue(job("j1", "{\"v\":2}", 60_000, PendingRule.PUSH_DUE));

    assertEquals(EnqueueCode.CHANGED, r.code());
    assertTrue(r.value() >= t0 + 60_000, "due a minute after this enqueue");
    assertEquals(r.value(), probe.dueAt("j1"));
    assertEquals(r.value(), probe.record("j1").get("dueAt").asLong());
    assertTrue(probe.rawRecord("j1").endsWith(",\"p\":{\"v\":1}}"));
  }

  @Test
  void bothReplaceThePayloadAndMoveTheDueTimeOfAReadyJob() {
    probe.seedReady("j1");

    Enqueued r = broker.enqueue(job("j1", "{\"v\":2}", 60_000, PendingRule.REPLACE_AND_PUSH));

    assertEquals(EnqueueCode.CHANGED, r.code());
    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertTrue(probe.rawRecord("j1").endsWith(",\"p\":{\"v\":2}}"));
  }

  @Test
  void aRunningOrDeadJobIsRefusedAndNothingChanges() {
    probe.seedInFlight("c1", "running");
    probe.seedDead("c2", "dead", "boom");
    String running = probe.rawRecord("running");
    String dead = probe.rawRecord("dead");

    for (PendingRule option : List.of(PendingRule.REPLACE_PAYLOAD, PendingRule.PUSH_DUE, PendingRule.REPLACE_AND_PUSH)) {
      assertEquals(new Enqueued(EnqueueCode.REFUSED_RUNNING, -1),
          broker.enqueue(job("running", "{\"v\":2}", 0, option)));
      assertEquals(EnqueueCode.DEAD, broker.enqueue(job("dead", "{\"v\":2}", 0, option)).code());
    }

    assertEquals(running, probe.rawRecord("running"));
    assertEquals(List.of("inflight:c1"), probe.placesOf("running"));
    assertEquals(dead, probe.rawRecord("dead"));
    assertEquals(List.of("dead"), probe.placesOf("dead"));
  }

  @Test
  void anAbsentIdIsEnqueuedAsUsualWhateverTheOption() {
    Enqueued r = broker.enqueue(job("new", "{}", 60_000, PendingRule.REPLACE_AND_PUSH));

    assertEquals(EnqueueCode.ACCEPTED, r.code());
    assertEquals(List.of("delayed"), probe.placesOf("new"));
  }

  @Test
  void aBatchMayChangeAJobItAcceptedEarlierInTheSameCall() {
    List<Enqueued> r = broker.enqueueAll(List.of(
        job("j1", "{\"v\":1}", 60_000, PendingRule.KEEP),
        job("j1", "{\"v\":2}", 60_000, PendingRule.REPLACE_PAYLOAD)));

    assertEquals(List.of(EnqueueCode.ACCEPTED, EnqueueCode.CHANGED),
        r.stream().map(Enqueued::code).toList());
    assertTrue(probe.rawRecord("j1").endsWith(",\"p\":{\"v\":2}}"));
    assertEquals(List.of("delayed"), probe.placesOf("j1"));
  }
}
