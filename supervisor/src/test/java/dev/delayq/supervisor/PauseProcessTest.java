package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobRequest;
import dev.delayq.cli.DelayqLauncher;
import dev.delayq.metrics.StatsHash;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;

/**
 * Issue 13's pause scenario with the real supervisor: a type paused (bin/delayq pause) while
 * 1,000 of its jobs are due starts none of them for 5 s while another type runs; the pause
 * outlives a restart of the supervisor and all its children; resumed from the dashboard's API,
 * each of the 1,000 runs once (the ledger of runs counts it), and their lateness is counted apart.
 */
class PauseProcessTest {
  private static final int HELD = 1_000;
  private static final int OTHERS = 100;
  private static final String TOKEN = "pause-test-token";
  private static final String CONFIG = """
      worker:
        processes: 1
        threads: 4
        pollTimeout: 500ms
        drainTimeout: 5s
      supervisor:
        stopTimeout: 10s
      """ + SupervisorProcess.LEAN_JVMS;

  @TempDir
  Path home;
  @TempDir
  Path install;

  @BeforeAll
  static void childJarsAreBuilt() {
    SupervisorProcess.requireChildJars();
  }

  @Test
  void aPausedTypeStartsNothingUntilResumedAcrossASupervisorRestartThenEachJobRunsOnce() throws Exception {
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    env.put("DELAYQ_WEB_TOKEN", TOKEN);
    String queue = env.get("DELAYQ_QUEUE");
    Keys keys = new Keys("delayq", queue);
    UnifiedJedis redis = RedisFixture.get().redis();
    Inspector inspector = new Inspector(redis, keys);
    InvariantCheck invariant = new InvariantCheck(redis, keys);
    DelayQueue producer = new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5);
    Runs runs = new Runs(home.resolve("runs.log"));
    DelayqLauncher cli = DelayqLauncher.in(install);
    Map<String, String> cliEnv = Map.of("DELAYQ_REDIS_URL", env.get("DELAYQ_REDIS_URL"), "DELAYQ_QUEUE", queue);

    try (SupervisorProcess sup = SupervisorProcess.start(home, CONFIG, env)) {
      await().atMost(Duration.ofSeconds(60)).until(() -> redis.zcard(keys.consumers()) == 4);
      DelayqLauncher.Run paused = cli.run(cliEnv, "pause", queue + ":test_sleep");
      assertEquals(0, paused.exit(), paused.toString());
      assertEquals("paused type test_sleep in queue " + queue, paused.out().strip());

      List<JobRequest> jobs = new ArrayList<>();
      for (int i = 0; i < HELD; i++) {
        jobs.add(JobRequest.delay("test_sleep", runs.payload(0), Duration.ofMillis(i % 200)));
      }
      for (int i = 0; i < OTHERS; i++) {
        jobs.add(JobRequest.delay("test_other", runs.payload(0), Duration.ofMillis(i)));
      }
      List<dev.delayq.EnqueueResult> results = producer.enqueueAll(jobs);
      for (int i = 0; i < jobs.size(); i++) {
        types.put(results.get(i).id(), jobs.get(i).type());
      }
      long enqueued = System.currentTimeMillis();

      await().atMost(Duration.ofSeconds(30)).until(() -> count(runs, "end", "test_other") == OTHERS);
      await().atMost(Duration.ofSeconds(30)).until(() -> inspector.flow().held().getOrDefault("test_sleep", 0L) == HELD);
      Thread.sleep(Math.max(0, enqueued + 5_000 - System.currentTimeMillis()));
      assertEquals(OTHERS, runs.all().stream().filter(r -> r.what().equals("start")).count(),
          "5 s on: only the other type ran");
      DelayqLauncher.Run stats = cli.run(cliEnv, "stats");
      assertTrue(stats.out().contains("test_sleep paused since") && stats.out().contains("test_sleep holds " + HELD),
          stats.out());
      assertEquals(List.of(), invariant.breaches(), "held jobs are in their place");
      DelayqLauncher.Run inspected = cli.run(cliEnv, "inspect", results.get(0).id());
      assertTrue(inspected.out().contains("HELD"), inspected.toString());
    }

    try (SupervisorProcess sup = SupervisorProcess.start(home, CONFIG, env)) {
      await().atMost(Duration.ofSeconds(60)).until(() -> redis.zcard(keys.consumers()) == 4);
      Thread.sleep(2_000);
      assertEquals(OTHERS, runs.all().stream().filter(r -> r.what().equals("start")).count(),
          "the pause outlived the restart of every process");
      assertTrue(sup.status().orElseThrow().path("flow").path("paused").has("test_sleep"),
          "status shows the pause");

      WebClient web = new WebClient(sup.webUrl(), TOKEN);
      await().atMost(Duration.ofSeconds(30)).until(web::up);
      WebClient.Answer resumed = web.post("/api/resume", Map.of("scope", "test_sleep"));
      assertEquals(200, resumed.status(), resumed.body());
      assertEquals(HELD, resumed.json().path("givenBack").asInt(), resumed.body());

      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
          .until(() -> redis.hlen(keys.jobs()) == 0 && count(runs, "end", "test_sleep") >= HELD);
      Thread.sleep(500); // a second run, were there one, would show by now
      Map<String, List<Integer>> starts = runs.startedAttempts(Set.of());
      assertEquals(HELD + OTHERS, starts.size(), "lost 0");
      starts.forEach((id, attempts) -> assertEquals(List.of(1), attempts, id + " ran " + attempts));
      assertEquals(List.of(), invariant.breaches());
      assertEquals(0, inspector.depths().dead());

      // the held jobs' lateness is counted apart from the others'
      await().atMost(Duration.ofSeconds(5)).until(() ->
          StatsHash.parse(redis.hgetAll(keys.stats())).heldLateness().count() == HELD);
      assertEquals(OTHERS, StatsHash.parse(redis.hgetAll(keys.stats())).lateness().count());
    }
  }

  /** The job type of each id the producer was given (the ledger names ids only). */
  private final Map<String, String> types = new java.util.concurrent.ConcurrentHashMap<>();

  private long count(Runs runs, String what, String type) {
    return runs.all().stream().filter(r -> r.what().equals(what) && type.equals(types.get(r.id()))).count();
  }
}
