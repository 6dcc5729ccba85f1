package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.DelayQueue;
import dev.delayq.JobOptions;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's lists of jobs with large payloads, asked for at once, in a real supervisor with
 * the heap its launch script gives it: every answer comes, each payload cut to a preview (cut in
 * Redis) that names the payload's full size, and the supervisor stays up. And the JVMs it runs,
 * itself and its children, end on an OutOfMemoryError.
 */
class DashboardHeapProcessTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PREVIEW_BYTES = 2_000;

  @TempDir
  Path home;
  SupervisorProcess sup;

  @AfterEach
  void stop() throws Exception {
    if (sup != null) {
      sup.close();
    }
  }

  @Test
  void concurrentJobAndDeadListsOfMegabytePayloadsAllAnswerWithCutPreviews() throws Exception {
    SupervisorProcess.requireChildJars();
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    env.put("DELAYQ_WEB_TOKEN", "heap-test-token");
    Keys keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    RedisBroker broker = RedisFixture.get().broker(keys);
    Map<String, Integer> sizes = new HashMap<>();
    // dead jobs of legal 1 MB payloads (dead-lettered as a worker does), before any worker runs
    QueueProbe probe = new QueueProbe(broker);
    for (int i = 0; i < 10; i++) {
      String payload = JSON.writeValueAsString(Map.of("blob", "d".repeat(1_000_000), "n", i));
      Delivery d = probe.seedInFlight("heap-test", QueueProbe.at("dead-" + i, payload, probe.redisNowMs() - 1_000));
      assertTrue(broker.outcomes().deadLetter("heap-test", d, "boom " + i));
      sizes.put("dead-" + i, payload.length());
    }
    // 40 delayed jobs of 1 MB and 960 of 3 KB: a full page of 1,000 jobs is 40 MB of payloads
    try (DelayQueue queue = new DelayQueue(broker, 1 << 20, 5)) {
      for (int i = 0; i < 1_000; i++) {
        Map<String, Object> payload = Map.of("blob", (i < 40 ? "x".repeat(1_000_000) : "y".repeat(3_000)), "n", i);
        String id = "big-" + i;
        queue.delay("heap_test", payload, Duration.ofHours(1), JobOptions.withId(id));
        sizes.put(id, JSON.writeValueAsString(payload).length());
      }
    }

    // the heap and the options the launch script gives the supervisor's JVM
    sup = SupervisorProcess.start(home, SupervisorProcess.ONE_QUICK_WORKER, env, LaunchScript.supervisorJvmOptions());
    WebClient web = new WebClient(sup.webUrl(), "heap-test-token");
    await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(web::up);

    HttpClient http = HttpClient.newHttpClient();
    for (int round = 0; round < 2; round++) {
      List<String> paths = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        paths.add("/api/jobs?state=delayed&limit=1000");
      }
      for (int i = 0; i < 3; i++) {
        paths.add("/api/jobs?state=delayed&limit=50"); // the page's own request
      }
      paths.add("/api/dead?limit=1000");
      paths.add("/api/dead?limit=50");
      List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
      for (String path : paths) {
        answers.add(http.sendAsync(HttpRequest.newBuilder(URI.create(sup.webUrl() + path))
            .header("Authorization", "Bearer heap-test-token").timeout(Duration.ofSeconds(60)).build(),
            HttpResponse.BodyHandlers.ofString()));
      }
      List<String> statuses = new ArrayList<>();
      for (CompletableFuture<HttpResponse<String>> a : answers) {
        statuses.add(a.handle((r, failure) -> r != null ? Integer.toString(r.statusCode()) : failure.toString()).join());
      }
      assertEquals(paths.stream().map(p -> "200").toList(), statuses, "round " + round + "\n" + sup.output());
      assertFalse(sup.output().contains("OutOfMemoryError"), sup.output());
      for (int i = 0; i < paths.size(); i++) {
        HttpResponse<String> r = answers.get(i).join();
        JsonNode jobs = JSON.readTree(r.body()).path("jobs");
        int expected = paths.get(i).startsWith("/api/dead") ? 10 : paths.get(i).endsWith("=50") ? 50 : 1_000;
        assertEquals(expected, jobs.size(), paths.get(i));
        for (JsonNode job : jobs) {
          String id = job.path("id").asText();
          assertEquals((long) sizes.get(id), job.path("payloadBytes").asLong(), id + " names its payload's size");
          assertTrue(job.path("payloadTruncated").asBoolean(), id + " is cut");
          assertTrue(job.path("payload").asText().length() <= PREVIEW_BYTES + 1, id + " carries a preview only");
          assertTrue(job.path("payload").asText().startsWith("{\""), id + " preview starts the payload");
        }
      }
    }
    assertTrue(sup.process.isAlive(), sup.output());
    assertFalse(sup.output().contains("OutOfMemoryError"), sup.output());

    // the supervisor's JVM and its children end on an OutOfMemoryError
    String flag = ExitOnOutOfMemoryTest.FLAG;
    assertTrue(sup.process.info().commandLine().orElseThrow().contains(flag));
    await().atMost(Duration.ofSeconds(20)).until(() -> !sup.workerJvms().isEmpty());
    for (long pid : sup.workerJvms()) {
      assertTrue(ProcessHandle.of(pid).flatMap(h -> h.info().commandLine()).orElseThrow().contains(flag));
    }
    assertTrue(ProcessHandle.allProcesses().map(h -> h.info().commandLine().orElse(""))
        .filter(c -> c.contains(ChildSpecs.SCHEDULER_MAIN) && c.contains(sup.config.toString()))
        .allMatch(c -> c.contains(flag)));
  }
}
