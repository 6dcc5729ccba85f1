package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.cli.DelayqLauncher;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;

/**
 * The scenario of issue 9: 3,000 jobs with caller-chosen ids p-0 … p-2999, due over 8 s, enqueued
 * with {@code bin/delayq enqueue --file}, and the same file again a second later, while the
 * real supervisor's workers run them. The ids of the jobs that finished in between stay taken
 * (queue.idRetention), so no job runs twice; the ledger of runs counts it.
 */
class IdRetentionProcessTest {
  private static final int JOBS = 3_000;
  private static final Pattern SECOND_SUMMARY = Pattern.compile(
      "enqueued 0, duplicates 3000 \\((\\d+) still pending, (\\d+) already finished, 0 dead\\), rejected 0 \\(of 3000 lines\\)");

  @TempDir
  Path home;
  @TempDir
  Path install;

  @BeforeAll
  static void childJarsAreBuilt() {
    SupervisorProcess.requireChildJars();
  }

  @Test
  void theSameFileEnqueuedAgainASecondLaterRunsNoJobTwice() throws Exception {
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    Keys keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    UnifiedJedis redis = RedisFixture.get().redis();
    Runs runs = new Runs(home.resolve("runs.log"));
    Path file = home.resolve("jobs.jsonl");
    ObjectMapper json = new ObjectMapper();
    List<String> lines = new ArrayList<>(JOBS);
    for (int i = 0; i < JOBS; i++) {
      lines.add(json.writeValueAsString(Map.of("type", "test_sleep", "id", "p-" + i,
          "payload", runs.payload(0), "delay", (i * 8_000L / JOBS) + "ms")));
    }
    Files.write(file, lines);
    DelayqLauncher launcher = DelayqLauncher.in(install);
    Map<String, String> cliEnv = Map.of("DELAYQ_REDIS_URL", env.get("DELAYQ_REDIS_URL"),
        "DELAYQ_QUEUE", env.get("DELAYQ_QUEUE"));

    try (SupervisorProcess sup = SupervisorProcess.start(home, """
        worker:
          processes: 1
          threads: 4
          pollTimeout: 500ms
        supervisor:
          stopTimeout: 10s
        """ + SupervisorProcess.LEAN_JVMS, env)) {
      await().atMost(Duration.ofSeconds(60)).until(() -> redis.zcard(keys.consumers()) == 4);

      DelayqLauncher.Run first = launcher.run(cliEnv, "enqueue", "--file", file.toString());
      Thread.sleep(1_000);
      DelayqLauncher.Run second = launcher.run(cliEnv, "enqueue", "--file", file.toString());

      assertEquals(0, first.exit(), first.toString());
      assertTrue(first.out().startsWith("enqueued 3000, duplicates 0, rejected 0 (of 3000 lines)"), first.out());
      assertEquals(0, second.exit(), second.toString());
      Matcher m = SECOND_SUMMARY.matcher(second.out().lines().findFirst().orElse(""));
      assertTrue(m.matches(), second.out());
      int finished = Integer.parseInt(m.group(2));
      assertTrue(finished > 0, "some jobs had finished a second later: " + second.out());

      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
          .until(() -> redis.hlen(keys.jobs()) == 0 && runs.of("end", "p-" + (JOBS - 1)).size() == 1);
      Thread.sleep(1_000); // a second run, were there one, would show by now
      Map<String, List<Integer>> starts = runs.startedAttempts(Set.of());
      assertEquals(JOBS, starts.size(), "lost 0");
      starts.forEach((id, attempts) -> assertEquals(List.of(1), attempts, id + " ran " + attempts.size() + " times"));
      assertEquals(JOBS, redis.hlen(keys.ended()), "every id stays taken");
      assertEquals(List.of(), new InvariantCheck(redis, keys).breaches());

      DelayqLauncher.Run inspected = launcher.run(cliEnv, "inspect", "p-0");
      assertEquals(0, inspected.exit(), inspected.toString());
      assertTrue(inspected.out().contains("state       ENDED (done"), inspected.out());
      assertTrue(inspected.out().matches("(?s).*id free at  \\S+ \\(in 23h 59m.*"), inspected.out());
    }
  }
}
