package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.DelayQueue;
import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import dev.delayq.redis.DelayedReads;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.schedule.Cadence;
import dev.delayq.schedule.Schedule;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard in a real browser: Debian's headless Chromium, driven by Playwright
 * ({@code src/test/browser/dashboard.js}), against a real supervisor. The page loads without a
 * console error, shows the live worker count and queue depths, a resize from the page changes
 * what {@code status} says, a dead job retried from the page runs, and a delayed job listed in
 * the job browser and run now from the page succeeds. It leaves a screenshot at
 * {@code supervisor/target/dashboard.png}. Skipped, saying why, where node, the npm packages or
 * Chromium are missing ({@code .ci/run} installs them).
 */
class WebDashboardBrowserTest {
  static final Path BROWSER_DIR = SupervisorProcess.INSTALL.resolve("supervisor/src/test/browser");
  static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
  static final Path SCREENSHOT = SupervisorProcess.INSTALL.resolve("supervisor/target/dashboard.png");

  @TempDir
  Path home;

  @Test
  void dashboardShowsTheSystemResizesItRetriesADeadJobAndRunsAListedJobNow() throws Exception {
    String node = nodeWithBrowser();
    SupervisorProcess.requireChildJars();
    long began = System.nanoTime();

    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    Keys keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    DelayQueue queue = new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5);
    Inspector inspector = new Inspector(RedisFixture.get().redis(), keys);
    try (SupervisorProcess sup = SupervisorProcess.start(home, SupervisorProcess.ONE_QUICK_WORKER, env)) {
      WebClient web = new WebClient(sup.webUrl());
      await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200))
          .until(() -> web.up() && sup.children("worker").stream()
              .anyMatch(c -> c.path("state").asText().equals("RUNNING")));

      // a job that fails until a file exists goes dead on its only attempt; then it is unlocked
      Path unlock = home.resolve("unlocked");
      Path log = home.resolve("flaky-runs.log");
      String deadId = queue.delay("test_flaky", Map.of("unlock", unlock.toString(), "log", log.toString()),
          Duration.ZERO, JobOptions.defaults().maxAttempts(1)).id();
      await().atMost(Duration.ofSeconds(15)).until(() -> inspector.depths().dead() == 1);
      Files.createFile(unlock);
      List<JobRequest> later = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        later.add(JobRequest.delay("test_sleep", Map.of("ms", 0, "log", home.resolve("sleep-runs.log").toString()),
            Duration.ofMinutes(5 + i * 7)));
      }
      queue.enqueueAll(later);
      // a schedule whose ticks are hours away, so the page's schedules card shows one
      queue.schedules().upsert(new Schedule("daily-digest", new Cadence.Cron("0 9 * * *",
          java.time.ZoneId.of("Asia/Shanghai")), "test_sleep", "{\"ms\":0}", 3, false, Schedule.Missed.SKIP));
      // a long run the page finds among the in-flight jobs, inspects and cancels (it holds one of
      // worker-1's two threads meanwhile; the other runs the retried and the promoted job)
      queue.delay("test_sleep", Map.of("ms", 120_000, "log", home.resolve("sleep-runs.log").toString()),
          Duration.ZERO, JobOptions.withId("long-runner"));
      await().atMost(Duration.ofSeconds(15)).until(() -> inspector.depths().inFlight() == 1);
      Files.createDirectories(SCREENSHOT.getParent());
      Files.deleteIfExists(SCREENSHOT);

      long browserStart = System.nanoTime();
      Path out = home.resolve("browser.out");
      // the URL `status` prints, with the token, as an operator would open it
      SupervisorProcess.CliResult told = sup.run("status", "--config", sup.config.toString());
      String dashboard = told.output().lines().filter(l -> l.startsWith("dashboard ")).findFirst()
          .orElseThrow(() -> new AssertionError("status prints no dashboard URL: " + told.output()))
          .substring("dashboard ".length());
      assertEquals(sup.webUrl() + "/#token=" + sup.webToken(), dashboard);
      Process p = new ProcessBuilder(node, "dashboard.js", dashboard, deadId, "2", "7", SCREENSHOT.toString())
          .directory(BROWSER_DIR.toFile()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
      if (!p.waitFor(180, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("the browser script did not end within 180s: " + Files.readString(out));
      }
      double browserSeconds = (System.nanoTime() - browserStart) / 1e9;
      String output = Files.readString(out);
      assertEquals(0, p.exitValue(), output);
      List<String> lines = output.lines().filter(l -> l.startsWith("{")).toList();
      JsonNode result = new ObjectMapper().readTree(lines.get(lines.size() - 1));
      assertTrue(result.path("ok").asBoolean(), output);
      assertEquals(0, result.path("consoleErrors").size(), "console errors: " + result.path("consoleErrors"));

      // what the page did shows where operators look: status, and the job's own run
      SupervisorProcess.CliResult status = sup.run("status", "--json", "--config", sup.config.toString());
      assertEquals(0, status.code(), status.output());
      JsonNode children = new ObjectMapper().readTree(status.output().lines()
          .filter(l -> l.startsWith("{")).findFirst().orElseThrow()).path("children");
      List<String> workers = new ArrayList<>();
      children.forEach(c -> {
        if (c.path("role").asText().equals("worker")) {
          workers.add(c.path("name").asText() + " " + c.path("state").asText());
        }
      });
      assertEquals(List.of("worker-1 RUNNING", "worker-2 RUNNING"), workers, status.output());
      assertTrue(Files.readString(log).startsWith("done " + deadId + " "), "the retried job ran");
      String promoted = result.path("promoted").asText();
      assertEquals(later.size() - 1, new DelayedReads(RedisFixture.get().redis()).count(keys, "-inf", "+inf"), "one delayed job ran now");
      assertEquals(null, RedisFixture.get().redis().hget(keys.jobs(), promoted), "the job run now is done");
      assertTrue(Files.readString(home.resolve("sleep-runs.log")).contains("end " + promoted + " 1 "),
          "the job run now from the page ran once, on its first attempt");
      assertEquals(0, inspector.depths().dead());
      String ended = RedisFixture.get().redis().hget(keys.ended(), "long-runner");
      assertTrue(ended != null && ended.startsWith("cancelled:"), "the running job cancelled from the page: " + ended);
      assertTrue(!Files.readString(home.resolve("sleep-runs.log")).contains("end long-runner "), "it was interrupted");
      assertTrue(Files.size(SCREENSHOT) > 10_000, "a screenshot of the page at " + SCREENSHOT);
      System.out.printf("dashboard browser test: browser script %.1fs (steps %s), whole test %.1fs%n",
          browserSeconds, result.path("steps"), (System.nanoTime() - began) / 1e9);
    }
  }

  /**
   * A system of two queues: the page shows a queue picker with both, queue.name's depths first,
   * the other queue's once picked, and its whole-queue pause pauses the picked queue only.
   */
  @Test
  void theQueuePickerShowsAndActsOnThePickedQueue() throws Exception {
    String node = nodeWithBrowser();
    SupervisorProcess.requireChildJars();
    JobsJar.install(home);
    Map<String, String> env = new java.util.HashMap<>(SupervisorProcess.testRedisEnv());
    String main = env.get("DELAYQ_QUEUE");
    String other = main + "-low";
    env.put("DELAYQ_WORKER_QUEUES", main + ":3," + other + ":1");
    Keys mainKeys = new Keys("delayq", main);
    Keys otherKeys = new Keys("delayq", other);
    DelayQueue mainQueue = new DelayQueue(RedisFixture.get().broker(mainKeys), 1 << 20, 5);
    DelayQueue otherQueue = new DelayQueue(RedisFixture.get().broker(otherKeys), 1 << 20, 5);
    for (int i = 0; i < 2; i++) {
      mainQueue.delay("test_sleep", Map.of("ms", 0), Duration.ofHours(1));
    }
    for (int i = 0; i < 5; i++) {
      otherQueue.delay("test_sleep", Map.of("ms", 0), Duration.ofHours(1));
    }
    try (SupervisorProcess sup = SupervisorProcess.start(home, SupervisorProcess.ONE_QUICK_WORKER, env)) {
      WebClient web = new WebClient(sup.webUrl());
      await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(web::up);
      Path out = home.resolve("picker.out");
      Process p = new ProcessBuilder(node, "queue-picker.js", sup.webUrl() + "/#token=" + sup.webToken(), other, "2", "5")
          .directory(BROWSER_DIR.toFile()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("the browser script did not end within 120s: " + Files.readString(out));
      }
      String output = Files.readString(out);
      assertEquals(0, p.exitValue(), output);
      List<String> lines = output.lines().filter(l -> l.startsWith("{")).toList();
      JsonNode result = new ObjectMapper().readTree(lines.get(lines.size() - 1));
      assertEquals(0, result.path("consoleErrors").size(), "console errors: " + result.path("consoleErrors"));
      assertEquals(List.of(main, other), new ObjectMapper().convertValue(result.path("options"), List.class));
      assertTrue(RedisFixture.get().redis().hexists(otherKeys.paused(), "*"), "the picked queue is paused");
      assertTrue(!RedisFixture.get().redis().hexists(mainKeys.paused(), "*"), "queue.name's is not");
    }
  }

  /** The node binary, skipping the test (saying why) where node, playwright-core or Chromium is missing. */
  private static String nodeWithBrowser() {
    String node = onPath("node");
    Assumptions.assumeTrue(node != null, "node is not on PATH: the dashboard's browser test needs Node.js");
    Assumptions.assumeTrue(Files.isDirectory(BROWSER_DIR.resolve("node_modules/playwright-core")),
        "playwright-core is not installed: run `npm ci` in " + BROWSER_DIR + " (.ci/run does)");
    Assumptions.assumeTrue(Files.isExecutable(CHROMIUM),
        CHROMIUM + " is missing: `apt-get install chromium` (.ci/run does)");
    return node;
  }

  private static String onPath(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, program);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }
}
