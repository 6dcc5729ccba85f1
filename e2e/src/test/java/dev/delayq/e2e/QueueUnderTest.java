package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQueue;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** A fresh queue on the test Redis, with a producer, an inspector and a run log for it. */
final class QueueUnderTest {
  final RedisFixture redis = RedisFixture.get();
  final String queue = RedisFixture.freshQueue();
  final Keys keys = new Keys("delayq", queue);
  final RedisBroker broker = redis.broker(keys);
  final DelayQueue producer = new DelayQueue(broker, 1 << 20, 5);
  final Inspector inspector = new Inspector(redis.redis(), keys);
  final InvariantCheck invariant = new InvariantCheck(redis.redis(), keys);
  final RunLog log = new RunLog(redis.redis(), "e2e:" + queue + ":runs:" + UUID.randomUUID());

  JvmProcesses processes(String testName) {
    return new JvmProcesses(testName, redis.url(), queue);
  }

  /** A payload that makes the test handlers record their runs in {@link #log}. */
  String payload(String extra) {
    return "{\"log\":\"" + log.key() + "\"" + (extra.isEmpty() ? "" : "," + extra) + "}";
  }

  String payload() {
    return payload("");
  }

  /** The job's record as JSON text, or null once it is gone. */
  String record(String id) {
    return redis.redis().hget(keys.jobs(), id);
  }

  /**
   * A field of the job's record as text ("" when absent), by its full name (attempt, dueAt, ...)
   * whichever format the record is in; the record is parsed as JSON.
   */
  String recordField(String id, String field) {
    try {
      return dev.delayq.testing.QueueProbe.fullNames(new com.fasterxml.jackson.databind.ObjectMapper()
          .readTree(record(id))).path(field).asText();
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new AssertionError("record of " + id + " is not JSON: " + record(id), e);
    }
  }

  boolean isDead(String id) {
    return redis.redis().zscore(keys.dead(), id) != null;
  }

  /**
   * Runs 30 jobs due over 1.5 s and waits until all ran (outside {@link #log}): the first jobs of
   * fresh worker and scheduler JVMs run slower, which a lateness bound should not measure.
   */
  void warmUp() {
    String warmLog = log.key() + ":warm-up";
    for (int i = 0; i < 30; i++) {
      producer.delay("test_record", "{\"log\":\"" + warmLog + "\"}", Duration.ofMillis(50L * i));
    }
    await().atMost(30, TimeUnit.SECONDS).until(() -> redis.redis().llen(warmLog) == 30);
  }

  /** Of two scheduler processes run by hand (each its own lease owner), the one holding the lease now. */
  Process leaderOf(Process a, Process b) {
    String leader = redis.redis().get(keys.leader());
    return leader.endsWith(":" + a.pid()) ? a : b;
  }
}
