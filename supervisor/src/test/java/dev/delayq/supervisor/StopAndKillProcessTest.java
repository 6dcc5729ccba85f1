package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobRequest;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;

/**
 * The two ends a supervisor can meet with jobs in flight: a stop whose drain runs out of time
 * (its workers are SIGKILLed), and its own kill -9 under load followed by a new start. Nothing
 * is lost either way, and only jobs whose handler was running are charged.
 */
class StopAndKillProcessTest {
  @TempDir
  Path home;

  private final UnifiedJedis redis = RedisFixture.get().redis();

  @BeforeAll
  static void childJarsAreBuilt() {
    SupervisorProcess.requireChildJars();
  }

  private static final String CONFIG = """
      worker:
        processes: 2
        threads: 2
        pollTimeout: 500ms
      supervisor:
        stopTimeout: 30s
      jvm:
        worker: "-Xms32m -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError"
        scheduler: "-Xms16m -Xmx96m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
      """;

  private List<String> enqueue(Keys keys, Runs runs, int n, long ms) {
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      jobs.add(JobRequest.delay("test_sleep", runs.payload(ms), Duration.ZERO));
    }
    return new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5).enqueueAll(jobs).stream()
        .map(dev.delayq.EnqueueResult::id).toList();
  }

  @Test
  void stopPastItsTimeoutKillsTheWorkersAndPutsEveryJobBackOnlyTheRunningOnesCharged() throws Exception {
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    Keys keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    Runs runs = new Runs(home.resolve("runs.log"));
    try (SupervisorProcess sup = SupervisorProcess.start(home, CONFIG, env)) {
      sup.awaitRunning(3);
      List<String> ids = enqueue(keys, runs, 12, 60_000);
      await().atMost(Duration.ofSeconds(20)).until(() -> runs.all().size() == 4);

      SupervisorProcess.CliResult stop = sup.run("stop", "--timeout", "3s");

      assertEquals(0, stop.code(), stop.output());
      Set<String> started = new HashSet<>();
      runs.all().forEach(r -> started.add(r.id()));
      assertEquals(4, started.size(), "one job per consumer was running: " + runs.all());
      assertEquals(12, redis.llen(keys.ready()), "every job is back in ready: lost 0");
      for (String id : ids) {
        String raw = redis.hget(keys.jobs(), id);
        JobRecord record = JobRecord.parse(id, raw);
        if (started.contains(id)) {
          assertTrue(record.attempt() == 2 && record.lost() == 1, "charged: " + raw);
        } else {
          assertTrue(record.attempt() == 1 && record.lost() == 0, "not charged: " + raw);
        }
      }
      assertEquals(List.of(), new InvariantCheck(redis, keys).breaches());
    }
  }

  @Test
  void aSupervisorKilledUnderLoadAndStartedAgainRunsEveryJobOnce() throws Exception {
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    Keys keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    Runs runs = new Runs(home.resolve("runs.log"));
    List<String> ids;
    try (SupervisorProcess first = SupervisorProcess.start(home, CONFIG, env)) {
      first.awaitRunning(3);
      List<Long> children = new ArrayList<>();
      first.status().orElseThrow().path("children").forEach(c -> children.add(c.path("pid").asLong()));
      ids = enqueue(keys, runs, 200, 100);
      await().atMost(Duration.ofSeconds(20)).until(() -> runs.all().size() >= 40);

      first.process.destroyForcibly(); // kill -9: its children drain and exit on their own
      await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(100)).until(() -> children.stream()
          .noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)));
      assertTrue(redis.hlen(keys.jobs()) > 0, "killed under load, with jobs left");
    }
    try (SupervisorProcess second = SupervisorProcess.start(home, CONFIG, env)) {
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
          .until(() -> redis.hlen(keys.jobs()) == 0);

      Map<String, List<Integer>> starts = runs.startedAttempts(Set.of());
      assertEquals(Set.copyOf(ids), starts.keySet(), "every job ran: lost 0");
      starts.forEach((id, attempts) -> assertEquals(List.of(1), attempts, id + ": once, uncharged"));
      assertEquals(200, runs.all().stream().filter(r -> r.what().equals("end")).count());
      assertEquals(List.of(), new InvariantCheck(redis, keys).breaches());
    }
  }
}
