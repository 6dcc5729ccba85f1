package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.JobRequest;
import dev.delayq.e2e.handlers.Gadget;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Hostile records, written straight into Redis as another client could (past every check of the
 * producer), claimed by a real worker process: a payload naming a gadget class with "@class",
 * one nested 10,000 deep, one array of 1,000,000 elements inside the size limit (raised to 4 MiB
 * for it), and a record of 6 MB past the limit a worker reads. Each goes dead with its reason, no
 * class is loaded, and the worker lives on: the job enqueued after them runs.
 */
class HostilePayloadsTest {
  private static String record(String payload) {
    return "{\"type\":\"test_record\",\"maxAttempts\":5,\"attempt\":1,\"createdAt\":1,\"dueAt\":1,\"payload\":"
        + payload + "}";
  }

  @Test
  void hostileRecordsGoDeadWithTheirReasonNoClassIsLoadedAndTheWorkerLivesOn() throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    Map<String, String> hostile = new LinkedHashMap<>();
    hostile.put("gadget", "{\"@class\":\"" + Gadget.class.getName() + "\",\"log\":\"" + q.log.key() + "\"}");
    hostile.put("deep", "[".repeat(10_000) + "]".repeat(10_000));
    hostile.put("wide", "[" + "0,".repeat(999_999) + "0]");
    hostile.put("huge", "{\"pad\":\"" + "x".repeat(6_000_000) + "\"}");
    Map<String, String> reasons = Map.of(
        "gadget", "payload refused: it has a member \"@class\", a class-name marker",
        "deep", "payload refused: it nests deeper than 1000 levels",
        "wide", "payload refused: it has more than 1000000 JSON tokens",
        "huge", "bytes is over the limit a worker reads");
    try (JvmProcesses processes = q.processes("hostilePayloads")
        .with("DELAYQ_QUEUE_MAX_PAYLOAD_BYTES", Integer.toString(4 << 20))) {
      Process worker = processes.worker("worker-1");
      await().atMost(30, TimeUnit.SECONDS).until(() -> !q.broker.consumerRegistry().consumers().isEmpty());
      for (Map.Entry<String, String> h : hostile.entrySet()) {
        q.redis.redis().hset(q.keys.jobs(), h.getKey(), record(h.getValue()));
        q.redis.redis().lpush(q.keys.ready(), h.getKey());
      }

      await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(100))
          .until(() -> hostile.keySet().stream().allMatch(q::isDead));
      String after = q.producer.enqueue(JobRequest.delay("test_record", q.payload(), Duration.ZERO)).id();
      await().atMost(30, TimeUnit.SECONDS).until(() -> q.log.attemptsById().containsKey(after));

      for (String id : hostile.keySet()) {
        String lastError = q.recordField(id, "lastError");
        assertTrue(lastError.contains(reasons.get(id)), id + ": " + lastError);
      }
      assertTrue(worker.isAlive(), "the worker lives on");
      assertFalse(Files.exists(Gadget.marker(worker.pid())), "the gadget class was never loaded");
      assertEquals(List.of(after), List.copyOf(q.log.attemptsById().keySet()), "no hostile job reached its handler");
      assertTrue(q.record("huge").endsWith("x".repeat(100) + "\"}}"), "the long record is kept as stored");
      assertEquals(List.of(), q.invariant.breaches());
    }
  }
}
