package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.delayed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.redis.RedisBroker.RequeueMode;
import dev.delayq.redis.RedisBroker.Requeued;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * requeueInFlight.lua through {@link RedisBroker#requeueInFlight} and
 * {@link RedisBroker#requeueConsumersOf}.
 */
class RequeueInFlightScriptTest {
  private static final int POISON_AT = 3;

  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  private Requeued gone(String consumer) {
    return broker.requeueInFlight(consumer, RequeueMode.GONE, "worker-1 exited with 137", POISON_AT);
  }

  @Test
  void expiredModeLeavesALiveConsumerAlone() {
    probe.seedInFlight("c1", "j1");
    String record = probe.rawRecord("j1");
    Long expiry = probe.consumerExpiry("c1");

    Requeued r = broker.requeueInFlight("c1", RequeueMode.EXPIRED, "heartbeat expired", POISON_AT);

    assertEquals(new Requeued(0, 0, true), r);
    assertEquals(List.of("inflight:c1"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"));
    assertEquals(expiry, probe.consumerExpiry("c1"));
  }

  @Test
  void expiredModeTakesBackTheJobsOfASilentConsumer() {
    probe.seedReady("j1");
    broker.claim("c1", 1.0, 1);
    probe.awaitRedisTimePast(probe.consumerExpiry("c1"));

    Requeued r = broker.requeueInFlight("c1", RequeueMode.EXPIRED, "heartbeat expired", POISON_AT);

    assertEquals(new Requeued(1, 0, false), r);
    assertEquals(List.of("ready"), probe.placesOf("j1"));
    JsonNode record = probe.record("j1");
    assertEquals(2, record.get("attempt").asInt());
    assertEquals(1, record.get("lost").asInt());
    assertEquals("heartbeat expired", record.get("lastError").asText());
    assertNull(probe.consumerExpiry("c1"));
  }

  @Test
  void goneModeRequeuesWithAttemptPlusOneAndLostPlusOne() {
    probe.seedInFlight("c1", delayed("j1", MoveToDelayedScriptTest.TRICKY_PAYLOAD, 0));

    assertEquals(new Requeued(1, 0, false), gone("c1"));

    assertEquals(List.of("ready"), probe.placesOf("j1"));
    JsonNode record = probe.record("j1");
    assertEquals(2, record.get("attempt").asInt());
    assertEquals(1, record.get("lost").asInt());
    assertEquals("worker-1 exited with 137", record.get("lastError").asText());
    assertTrue(probe.rawRecord("j1").endsWith(",\"payload\":" + MoveToDelayedScriptTest.TRICKY_PAYLOAD + "}"));
    assertEquals(List.of(), probe.inFlightIds("c1"));
    assertEquals(List.of(), probe.deadIds());
  }

  @Test
  void requeuedJobRunsNextAheadOfWaitingJobs() {
    probe.seedInFlight("c1", "j1");
    probe.seedReady("waiting");

    gone("c1");

    assertEquals(List.of("waiting", "j1"), probe.readyIds());
    assertEquals("j1", broker.claim("c2", 1.0, 30_000).orElseThrow().id());
  }

  @Test
  void consumerIsUnregisteredOnceItsListIsEmptyAndItsLateAckIsFenced() {
    probe.seedInFlight("c1", "j1");

    gone("c1");
    assertNull(probe.consumerExpiry("c1"));

    assertFalse(broker.ack("c1", "j1"));
    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(2, probe.record("j1").get("attempt").asInt());
  }

  @Test
  void jobLostWithItsWorkerPoisonAtTimesGoesToDead() {
    probe.seedInFlight("c1", "j1");
    for (int lost = 1; lost < POISON_AT; lost++) {
      assertEquals(new Requeued(1, 0, false), gone("c1"));
      assertEquals(lost, probe.record("j1").get("lost").asInt());
      assertEquals("j1", broker.claim("c1", 1.0, 30_000).orElseThrow().id());
    }

    long t0 = probe.redisNowMs();
    assertEquals(new Requeued(0, 1, false), gone("c1"));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    JsonNode record = probe.record("j1");
    assertEquals(POISON_AT, record.get("lost").asInt());
    assertTrue(record.get("lastError").asText().startsWith("poison pill: 3 deliveries were lost"),
        record.get("lastError").asText());
    assertTrue(record.get("lastError").asText().endsWith("worker-1 exited with 137"));
    assertEquals(probe.deadAt("j1"), record.get("deadAt").asLong());
    assertTrue(probe.deadAt("j1") >= t0);
  }

  @Test
  void jobPastItsMaxAttemptsGoesToDead() {
    probe.seedInFlight("c1", new RedisBroker.NewJob("j1", QueueProbe.head("t", 1), "{}", 0, false));

    assertEquals(new Requeued(0, 1, false), gone("c1"));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    JsonNode record = probe.record("j1");
    assertEquals(2, record.get("attempt").asInt());
    assertTrue(record.get("lastError").asText().startsWith("attempts exhausted"), record.toString());
    assertNotNull(probe.deadAt("j1"));
  }

  @Test
  void malformedRecordGoesToDeadVerbatim() {
    probe.seedInFlight("c1", "j1");
    broker.redis().hset(broker.keys().jobs(), "j1", "{broken");

    assertEquals(new Requeued(0, 1, false), gone("c1"));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    assertEquals("{broken", probe.record("j1").get("malformed").asText());
  }

  @Test
  void idWithoutARecordIsDropped() {
    probe.seedInFlight("c1", "j1");
    broker.redis().lpush(broker.keys().inFlight("c1"), "ghost");

    assertEquals(new Requeued(1, 0, false), gone("c1"));

    assertEquals(List.of(), probe.placesOf("ghost"));
    assertEquals(List.of("ready"), probe.placesOf("j1"));
  }

  @Test
  void moreJobsThanOneBatchAreAllTakenBack() {
    List<RedisBroker.NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 1_500; i++) {
      jobs.add(delayed("j" + i, "{}", 0));
    }
    broker.enqueueAll(jobs);
    for (int i = 0; i < 1_500; i++) {
      broker.claim("c1", 1.0, 30_000).orElseThrow();
    }
    assertEquals(1_500, probe.inFlightIds("c1").size());

    assertEquals(new Requeued(1_500, 0, false), gone("c1"));

    assertEquals(1_500, broker.redis().llen(broker.keys().ready()));
    assertEquals(List.of(), probe.inFlightIds("c1"));
    assertNull(probe.consumerExpiry("c1"));
    assertEquals(List.of("ready"), probe.placesOf("j777"));
  }

  @Test
  void requeueConsumersOfTakesBackOnlyThatProcessesConsumers() {
    probe.seedInFlight("w1/0", "a");
    probe.seedInFlight("w1/1", "b");
    probe.seedInFlight("w2/0", "c");

    Requeued r = broker.requeueConsumersOf("w1/", "worker-1 exited", POISON_AT);

    assertEquals(new Requeued(2, 0, false), r);
    assertEquals(List.of("ready"), probe.placesOf("a"));
    assertEquals(List.of("ready"), probe.placesOf("b"));
    assertEquals(List.of("inflight:w2/0"), probe.placesOf("c"));
    assertEquals(List.of("w2/0"), broker.consumers());
  }
}
