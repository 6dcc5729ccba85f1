package dev.delayq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** worker.queues, worker.strict and the per-queue overrides of the queues section. */
class SeveralQueuesConfigTest {
  private final ConfigLoader loader = new ConfigLoader();

  @TempDir
  Path dir;

  private Path yaml(String text) throws IOException {
    return new ConfigFiles(dir).yaml(text);
  }

  private void refused(String text, String... parts) throws IOException {
    new ConfigFiles(dir).refused(yaml(text), Map.of(), parts);
  }

  @Test
  void withoutWorkerQueuesTheSystemServesQueueNameAlone() {
    DelayqConfig c = loader.load(null, Map.of("DELAYQ_QUEUE", "orders"));

    assertEquals(List.of("orders"), c.queueNames());
    assertFalse(c.severalQueues());
    assertEquals(Map.of(), c.worker().queues());
    assertFalse(c.worker().strict());
  }

  @Test
  void workerQueuesKeepTheirOrderAndWeightsFromTheFileAndTheEnvironment() throws IOException {
    DelayqConfig c = loader.load(yaml("worker:\n  queues: {low: 1, default: 3, critical: 6}\n"), Map.of());
    assertEquals(List.of("low", "default", "critical"), c.queueNames());
    assertEquals(6, c.worker().queues().get("critical"));
    assertTrue(c.severalQueues());

    DelayqConfig e = loader.load(null, Map.of("DELAYQ_WORKER_QUEUES", "critical:6, default:3,low:1",
        "DELAYQ_WORKER_STRICT", "true"));
    assertEquals(List.of("critical", "default", "low"), e.queueNames());
    assertEquals(3, e.worker().queues().get("default"));
    assertTrue(e.worker().strict());
  }

  @Test
  void badWeightsNamesAndCombinationsAreRefusedNamingTheKey() throws IOException {
    refused("worker:\n  queues: {default: 0}\n", "worker.queues", "weight of queue default", "between 1 and 1000");
    refused("worker:\n  queues: {\"bad name\": 1, default: 1}\n", "worker.queues", "bad name");
    refused("worker:\n  queues: [default, low]\n", "worker.queues", "must be a mapping");
    refused("worker:\n  strict: true\n", "worker.strict", "needs worker.queues");
    refused("worker:\n  queues: {critical: 6, low: 1}\n", "worker.queues", "does not list queue.name (default)");
    refused("queue:\n  shards: 4\nworker:\n  queues: {default: 6, low: 1}\n", "worker.queues", "sharded");
    new ConfigFiles(dir).refused(yaml(""), Map.of("DELAYQ_WORKER_QUEUES", "default=3"), "DELAYQ_WORKER_QUEUES",
        "name:value");
  }

  @Test
  void aQueueOverridesItsRetryKeyByKeyAndItsJobTimeout() throws IOException {
    DelayqConfig c = loader.load(yaml("""
        worker:
          queues: {critical: 6, default: 3}
          jobTimeout: 20s
        retry:
          maxAttempts: 4
        queues:
          critical:
            jobTimeout: 5s
            retry: {maxAttempts: 10, baseDelay: 500ms}
        """), Map.of());

    DelayqConfig critical = c.forQueue("critical");
    assertEquals("critical", critical.queue().name());
    assertEquals(List.of("critical"), critical.queueNames());
    assertEquals(Duration.ofSeconds(5), critical.worker().jobTimeout());
    assertEquals(10, critical.retry().maxAttempts());
    assertEquals(Duration.ofMillis(500), critical.retry().baseDelay());
    assertEquals(c.retry().maxDelay(), critical.retry().maxDelay());
    DelayqConfig plain = c.forQueue("default");
    assertEquals(Duration.ofSeconds(20), plain.worker().jobTimeout());
    assertEquals(4, plain.retry().maxAttempts());
    assertEquals(List.of("critical", "default"), c.perQueue().stream().map(q -> q.queue().name()).toList());
  }

  @Test
  void badOverridesAreRefusedNamingTheirPath() throws IOException {
    refused("queues:\n  default:\n    retry: {maxAttempts: 0}\n", "queues.default.retry.maxAttempts", "between 1");
    refused("queues:\n  default:\n    jobTimeout: 0s\n", "queues.default.jobTimeout", "longer than 0");
    refused("queues:\n  default:\n    timeout: 5s\n", "queues.default", "unknown");
    refused("queues:\n  nightly:\n    jobTimeout: 5s\n", "queues", "nightly", "does not serve");
  }
}
