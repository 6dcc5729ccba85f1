package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restart policy against real child processes whose JVM options make them end at once:
 * an unknown -XX option exits 1, {@code -version} exits 0.
 */
class RestartPolicyProcessTest {
  @TempDir
  Path home;

  private static String config(String workerJvm) {
    return """
        worker:
          processes: 1
          threads: 1
        supervisor:
          restartIntensity: 2
          restartPeriod: 60s
          restartBackoffMin: 1s
          restartBackoffMax: 2s
          stopTimeout: 5s
        jvm:
          worker: "%s"
        """.formatted(workerJvm);
  }

  @Test
  void childThatExitsNonZeroAtOnceGoesToBackoffThenFatal() throws Exception {
    try (SupervisorProcess sup = SupervisorProcess.start(home, config("-XX:+NoSuchDelayqOption"),
        SupervisorProcess.testRedisEnv())) {
      List<String> seen = new ArrayList<>();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
        String state = sup.state("worker-1");
        if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(state)) {
          seen.add(state);
        }
        return state.equals("FATAL");
      });
      assertTrue(seen.contains("BACKOFF"), "states seen: " + seen);
      JsonNode worker = sup.child("worker-1").orElseThrow();
      assertEquals(2, worker.path("restarts").asInt(), "intensity 2: two restarts, then FATAL");
      assertEquals(1, worker.path("lastExitCode").asInt());
      assertTrue(worker.path("pid").isNull());
      // it stays down
      await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
          .until(() -> sup.state("worker-1").equals("FATAL"));
      assertTrue(sup.output().contains("worker-1 BACKOFF -> STARTING"), sup.output());
      assertTrue(sup.output().contains("-> FATAL"), sup.output());
    }
  }

  @Test
  void childThatExitsZeroIsNotRestarted() throws Exception {
    try (SupervisorProcess sup = SupervisorProcess.start(home, config("-version"),
        SupervisorProcess.testRedisEnv())) {
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
          .until(() -> sup.state("worker-1").equals("EXITED"));
      await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
          .until(() -> sup.state("worker-1").equals("EXITED"));
      JsonNode worker = sup.child("worker-1").orElseThrow();
      assertEquals(0, worker.path("restarts").asInt());
      assertEquals(0, worker.path("lastExitCode").asInt());
      assertTrue(sup.log("worker-1").contains("version"), "the child's output is in logs/worker-1.log");
    }
  }
}
