package dev.delayq.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.Keys;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.Workflows;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/**
 * A worker runs a workflow's jobs: a waiting job's handler reads the results of what it waited
 * for, a batch's callback runs once after its last job, and a result over queue.maxResultBytes
 * fails the attempt, saying so.
 */
class WorkflowRunTest {
  private final Keys keys = RedisFixture.freshKeys();

  /** Every run, "<id> saw <results of what it waited for>", in the order they ran. */
  private final Queue<String> runs = new ConcurrentLinkedQueue<>();

  private final JobHandler step = new JobHandler() {
    @Override
    public String type() {
      return "step";
    }

    @Override
    public JobResult handle(JobContext ctx) {
      Map<String, String> seen = new HashMap<>();
      ctx.waitedFor().forEach(id -> seen.put(id, ctx.resultOf(id).map(Object::toString).orElse("none")));
      runs.add(ctx.id() + " saw " + seen + (ctx.batchId().isPresent() ? " in " + ctx.batchId().get() : ""));
      // (sorted, so the JSON reads the same each run)
      return JobResult.done(new java.util.TreeMap<>(Map.of("by", ctx.id(), "pad", "x".repeat(ctx.payload().path("pad").asInt()))));
    }
  };

  private DelayqConfig config(String maxResultBytes) {
    return new ConfigLoader().load(null, Map.of(
        "DELAYQ_REDIS_URL", RedisFixture.get().url(),
        "DELAYQ_QUEUE", keys.queue(),
        "DELAYQ_QUEUE_KEY_PREFIX", keys.prefix(),
        "DELAYQ_QUEUE_MAX_RESULT_BYTES", maxResultBytes,
        "DELAYQ_WORKER_THREADS", "2",
        "DELAYQ_WORKER_POLL_TIMEOUT", "200ms",
        "DELAYQ_WORKER_DRAIN_TIMEOUT", "2s"));
  }

  private static Workflows.FlowJob job(String id, String batch, int pad, String... waits) {
    StringBuilder extra = new StringBuilder();
    if (batch != null) {
      extra.append(",\"b\":\"").append(batch).append('"');
    }
    if (waits.length > 0) {
      extra.append(",\"w\":[\"").append(String.join("\",\"", waits)).append("\"]");
    }
    extra.append(",\"wf\":1");
    return new Workflows.FlowJob(new NewJob(id, JobRecord.newHead("step", 2, false, Map.of(), extra.toString()),
        "{\"pad\":" + pad + "}", 0, false), List.of(waits), "fail");
  }

  @Test
  void aChainRunsInOrderAndEachStepReadsTheResultOfTheOneBefore() throws Exception {
    DelayqConfig config = config("65536");
    try (RedisConnection redis = RedisConnector.connect(config, "workflow-run-test", 8);
        Worker worker = Worker.inApp(config, redis, List.of(step))) {
      RedisBroker broker = new RedisBroker(redis, Keys.of(config)).withLimits(config);
      broker.workflows().enqueue(null, List.of(job("a", null, 0), job("b", null, 0, "a"), job("c", null, 0, "b")));
      worker.start();

      await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() == 3);
      assertEquals(List.of("a saw {}", "b saw {a={\"by\":\"a\",\"pad\":\"\"}}", "c saw {b={\"by\":\"b\",\"pad\":\"\"}}"),
          List.copyOf(runs));
      assertEquals("{\"by\":\"c\",\"pad\":\"\"}", broker.workflows().result("c").orElseThrow().json());
      assertEquals(0, new QueueProbe(broker).recordCount(), "every step ended");
    }
  }

  @Test
  void aBatchsCallbackRunsOnceAfterItsLastJob() throws Exception {
    DelayqConfig config = config("65536");
    try (RedisConnection redis = RedisConnector.connect(config, "workflow-run-test", 8);
        Worker worker = Worker.inApp(config, redis, List.of(step))) {
      RedisBroker broker = new RedisBroker(redis, Keys.of(config)).withLimits(config);
      Workflows flows = broker.workflows();
      flows.openBatch("nightly");
      List<Workflows.FlowJob> members = new java.util.ArrayList<>();
      for (int i = 0; i < 50; i++) {
        members.add(job("m" + i, "nightly", 0));
      }
      flows.enqueue("nightly", members);
      flows.closeBatch("nightly", new Workflows.Callback("rebuild", JobRecord.newHead("step", 2, false, Map.of(), ",\"wf\":1"),
          "{}", 0), null);
      worker.start();

      await().atMost(Duration.ofSeconds(20)).until(() -> runs.stream().anyMatch(r -> r.startsWith("rebuild ")));
      Thread.sleep(300); // a second run of the callback would show now
      List<String> all = List.copyOf(runs);
      assertEquals(51, all.size(), String.valueOf(all));
      assertEquals("rebuild saw {}", all.get(50), "the callback ran last, once");
      assertTrue(all.get(0).endsWith(" in nightly"), all.get(0));
      assertEquals("finished", flows.batch("nightly").orElseThrow().state());
    }
  }

  @Test
  void aResultOverTheLimitFailsTheAttemptAndSaysSo() throws Exception {
    DelayqConfig config = config("100");
    try (RedisConnection redis = RedisConnector.connect(config, "workflow-run-test", 8);
        Worker worker = Worker.inApp(config, redis, List.of(step))) {
      RedisBroker broker = new RedisBroker(redis, Keys.of(config)).withLimits(config);
      broker.workflows().enqueue(null, List.of(job("big", null, 200)));
      worker.start();

      QueueProbe probe = new QueueProbe(broker);
      await().atMost(Duration.ofSeconds(20)).until(() -> probe.placesOf("big").contains("delayed")
          || probe.placesOf("big").contains("dead"));
      String lastError = probe.record("big").path("lastError").asText();
      assertTrue(lastError.contains("over queue.maxResultBytes (100)"), lastError);
      assertTrue(broker.workflows().result("big").isEmpty(), "no result kept");
    }
  }
}
