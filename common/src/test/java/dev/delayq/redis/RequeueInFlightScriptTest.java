package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.delayed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.args.ListDirection;

/**
 * requeueInFlight.lua through {@link RedisBroker#requeueInFlight}: the charging rule. Only the
 * delivery marked running counts an attempt and a lost delivery; prefetched jobs that never
 * started, and one that finished before it, go back to the front of ready as they were.
 */
class RequeueInFlightScriptTest {
  private static final int POISON_AT = 3;

  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  private Requeued gone(String consumer) {
    return broker.consumerRegistry().requeueInFlight(consumer, RequeueMode.GONE, "worker-1 exited with 137", POISON_AT);
  }

  /** Seeds ready jobs and claims them for {@code consumer} in one batch (the first is marked running). */
  private List<Delivery> claimBatch(String consumer, NewJob... jobs) {
    for (NewJob job : jobs) {
      probe.seedReady(job);
    }
    return broker.claims().claimReady(consumer, 30_000, jobs.length, null).jobs().stream()
        .map(Claimed::delivery).toList();
  }

  private List<Delivery> claimBatch(String consumer, String... ids) {
    return claimBatch(consumer, java.util.Arrays.stream(ids).map(id -> delayed(id, "{}", 0))
        .toArray(NewJob[]::new));
  }

  private void assertUncharged(String id) {
    JsonNode r = probe.record(id);
    assertEquals(1, r.get("attempt").asInt(), id + " counted an attempt: " + r);
    assertFalse(r.has("lost"), id + " counted a lost delivery: " + r);
    assertFalse(r.has("lastError"), id + " got an error: " + r);
  }

  @Test
  void onlyTheJobThatWasRunningIsChargedAndThePrefetchedOnesGoBackUncharged() {
    List<Delivery> d = claimBatch("c1", "done", "running", "next", "later");
    assertTrue(broker.starts().start("c1", d.get(1), d.get(0)).started());

    assertEquals(new Requeued(2, 1, 0, false), gone("c1"));

    JsonNode running = probe.record("running");
    assertEquals(2, running.get("attempt").asInt());
    assertEquals(1, running.get("lost").asInt());
    assertEquals("worker-1 exited with 137", running.get("lastError").asText());
    assertUncharged("next");
    assertUncharged("later");
    assertEquals(List.of("later", "next", "running"), probe.readyIds(), "in claim order, the first at the front");
    assertEquals(List.of(), probe.placesOf("done"), "acknowledged before the crash");
    assertNull(probe.runningMark("c1"));
    assertNull(probe.consumerExpiry("c1"));
  }

  @Test
  void prefetchedJobsGoBackToTheFrontOfReadyAheadOfWaitingJobsInTheirOrder() {
    claimBatch("c1", "a", "b", "c");
    probe.seedReady("waiting");

    gone("c1");

    assertEquals(List.of("waiting", "c", "b", "a"), probe.readyIds());
    assertEquals("a", broker.claims().claim("c2", 1.0, 30_000).orElseThrow().id(), "the first claimed runs next");
  }

  @Test
  void aPrefetchedJobAtItsLastAttemptGoesBackToReadyNotToDead() {
    claimBatch("c1", delayed("running", "{}", 0), new NewJob("last-try", QueueProbe.head("t", 1), "{}", 0, false));

    assertEquals(new Requeued(1, 1, 0, false), gone("c1"));

    assertEquals(List.of("ready"), probe.placesOf("last-try"));
    assertUncharged("last-try");
  }

  @Test
  void theRunningJobPastItsMaxAttemptsGoesToDead() {
    claimBatch("c1", new NewJob("j1", QueueProbe.head("t", 1), "{}", 0, false));

    assertEquals(new Requeued(0, 1, 1, false), gone("c1"));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    JsonNode record = probe.record("j1");
    assertEquals(2, record.get("attempt").asInt());
    assertTrue(record.get("lastError").asText().startsWith("attempts exhausted; last delivery lost"), record.toString());
    assertNotNull(probe.deadAt("j1"));
  }

  @Test
  void aFinishedJobWhoseAcknowledgementHadNotLandedGoesBackUncounted() {
    List<Delivery> d = claimBatch("c1", "finished", "running");
    assertTrue(broker.starts().start("c1", d.get(1), null).started(), "marked without acknowledging the first");

    assertEquals(new Requeued(1, 1, 0, false), gone("c1"));

    assertEquals(List.of("ready"), probe.placesOf("finished"), "it may run again");
    assertUncharged("finished");
    assertEquals(2, probe.record("running").get("attempt").asInt());
  }

  @Test
  void aBareIdBlmoveLeftBeforeItsClaimScriptGoesBackUncharged() {
    probe.seedReady("j1");
    RedisFixture.get().redis().lmove(broker.keys().ready(), broker.keys().inFlight("c1"), ListDirection.RIGHT, ListDirection.LEFT);

    assertEquals(new Requeued(1, 0, 0, false), gone("c1"));

    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertUncharged("j1");
  }

  @Test
  void expiredModeLeavesALiveConsumerAlone() {
    probe.seedInFlight("c1", "j1");
    String record = probe.rawRecord("j1");
    Long expiry = probe.consumerExpiry("c1");

    Requeued r = broker.consumerRegistry().requeueInFlight("c1", RequeueMode.EXPIRED, "heartbeat expired", POISON_AT);

    assertEquals(new Requeued(0, 0, 0, true), r);
    assertEquals(List.of("inflight:c1"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"));
    assertEquals(expiry, probe.consumerExpiry("c1"));
  }

  @Test
  void expiredModeTakesBackTheJobsOfASilentConsumer() {
    probe.seedReady("j1");
    broker.claims().claim("c1", 1.0, 1);
    probe.awaitRedisTimePast(probe.consumerExpiry("c1"));

    Requeued r = broker.consumerRegistry().requeueInFlight("c1", RequeueMode.EXPIRED, "heartbeat expired", POISON_AT);

    assertEquals(new Requeued(0, 1, 0, false), r);
    assertEquals(List.of("ready"), probe.placesOf("j1"));
    JsonNode record = probe.record("j1");
    assertEquals(2, record.get("attempt").asInt());
    assertEquals(1, record.get("lost").asInt());
    assertEquals("heartbeat expired", record.get("lastError").asText());
    assertNull(probe.consumerExpiry("c1"));
  }

  @Test
  void theChargedRecordKeepsItsPayloadByteForByte() {
    probe.seedInFlight("c1", delayed("j1", MoveToDelayedScriptTest.TRICKY_PAYLOAD, 0));

    assertEquals(new Requeued(0, 1, 0, false), gone("c1"));

    assertTrue(probe.rawRecord("j1").endsWith(",\"p\":" + MoveToDelayedScriptTest.TRICKY_PAYLOAD + "}"));
    assertEquals(List.of(), probe.inFlightIds("c1"));
    assertEquals(List.of(), probe.deadIds());
  }

  @Test
  void consumerIsUnregisteredOnceItsListIsEmptyAndItsLateOutcomeIsFenced() {
    Delivery d = probe.seedInFlight("c1", "j1");

    gone("c1");
    assertNull(probe.consumerExpiry("c1"));

    assertEquals(Ack.FENCED, broker.acks().releaseClaimed("c1", d).ack());
    assertEquals(Moved.FENCED, broker.outcomes().retry("c1", d, 0, "late"));
    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(2, probe.record("j1").get("attempt").asInt());
  }

  @Test
  void aJobThatKilledItsWorkerPoisonAtTimesGoesToDeadAndTheJobsBehindItAreNeverCounted() {
    probe.seedReady("pill");
    probe.seedReady("behind");
    for (int lost = 1; lost < POISON_AT; lost++) {
      List<Claimed> batch = broker.claims().claimReady("c1", 30_000, 2, null).jobs();
      assertEquals(List.of("pill", "behind"), batch.stream().map(Claimed::id).toList());
      assertEquals(new Requeued(1, 1, 0, false), gone("c1"));
      assertEquals(lost, probe.record("pill").get("lost").asInt());
    }
    broker.claims().claimReady("c1", 30_000, 2, null);

    long t0 = probe.redisNowMs();
    assertEquals(new Requeued(1, 1, 1, false), gone("c1"));

    assertEquals(List.of("dead"), probe.placesOf("pill"));
    JsonNode record = probe.record("pill");
    assertEquals(POISON_AT, record.get("lost").asInt());
    assertTrue(record.get("lastError").asText().startsWith("poison pill: 3 deliveries were lost"),
        record.get("lastError").asText());
    assertTrue(record.get("lastError").asText().endsWith("worker-1 exited with 137"));
    assertEquals(probe.deadAt("pill"), record.get("deadAt").asLong());
    assertTrue(probe.deadAt("pill") >= t0);
    assertEquals(List.of("ready"), probe.placesOf("behind"));
    assertUncharged("behind");
  }

  @Test
  void malformedRecordOfTheRunningJobGoesToDeadVerbatim() {
    probe.seedInFlight("c1", "j1");
    RedisFixture.get().redis().hset(broker.keys().jobs(), "j1", "{broken");

    assertEquals(new Requeued(0, 1, 1, false), gone("c1"));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    assertEquals("{broken", probe.record("j1").get("malformed").asText());
  }

  @Test
  void runningRecordThatCannotBeWrittenBackGoesToDeadWithTheReason() {
    probe.seedInFlight("c1", "j1");
    String unencodable = "{\"type\":\"t\",\"attempt\":1,\"maxAttempts\":1e999,\"payload\":{}}";
    RedisFixture.get().redis().hset(broker.keys().jobs(), "j1", unencodable);

    assertEquals(new Requeued(0, 1, 1, false), gone("c1"));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    JsonNode r = probe.record("j1");
    assertEquals(unencodable, r.get("malformed").asText());
    assertTrue(r.get("lastError").asText().contains("the record cannot be written back"), r.toString());
    assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), broker.keys()).breaches());
  }

  @Test
  void idWithoutARecordIsDropped() {
    probe.seedInFlight("c1", "j1");
    RedisFixture.get().redis().lpush(broker.keys().inFlight("c1"), "ghost");

    assertEquals(new Requeued(0, 1, 0, false), gone("c1"));

    assertEquals(List.of(), probe.placesOf("ghost"));
    assertEquals(List.of("ready"), probe.placesOf("j1"));
  }

  @Test
  void moreJobsThanOneBatchAreAllTakenBackInClaimOrder() {
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 1_500; i++) {
      jobs.add(delayed("j" + i, "{}", 0));
    }
    broker.enqueueAll(jobs);
    for (int i = 0; i < 1_500; i++) {
      broker.claims().claim("c1", 1.0, 30_000).orElseThrow(); // each claim marks its job running: j1499 last
    }
    assertEquals(1_500, probe.inFlightIds("c1").size());

    assertEquals(new Requeued(1_499, 1, 0, false), gone("c1"));

    List<String> ready = probe.readyIds();
    assertEquals(1_500, ready.size());
    assertEquals("j0", ready.get(ready.size() - 1), "the first claimed runs first");
    assertEquals("j1499", ready.get(0));
    assertEquals(2, probe.record("j1499").get("attempt").asInt());
    assertUncharged("j777");
    assertEquals(List.of(), probe.inFlightIds("c1"));
    assertNull(probe.consumerExpiry("c1"));
  }
}
