package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
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
 * Jobs that kill their own worker, under the real supervisor: each crash is charged to the job
 * that caused it and to no other (the supervisor reads the worker's crash record), the supervisor
 * restarts the worker, and after three such crashes the job is dead as a poison pill. Every other
 * job, prefetched behind it each time, runs exactly once at attempt 1.
 */
class PoisonPillProcessTest {
  @TempDir
  Path home;

  @BeforeAll
  static void childJarsAreBuilt() {
    SupervisorProcess.requireChildJars();
  }

  private static String config(int workers, String workerJvm) {
    return """
        worker:
          processes: %d
          threads: 1
          pollTimeout: 500ms
        supervisor:
          restartBackoffMin: 1s
          restartBackoffMax: 1s
          restartIntensity: 20
          stopTimeout: 10s
        %s""".formatted(workers, workerJvm);
  }

  private record Setup(Map<String, String> env, Keys keys, DelayQueue queue, Runs runs) {}

  private Setup setup() throws Exception {
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    Keys keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    return new Setup(env, keys, new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5),
        new Runs(home.resolve("runs.log")));
  }

  /** Enqueues {@code n} quick jobs with the poison pills among them; returns the poison pills' ids. */
  private static List<String> enqueue(Setup s, int n, Map<Integer, String> poisonAt) {
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (poisonAt.containsKey(i)) {
        jobs.add(JobRequest.delay("test_crash", Map.of("how", poisonAt.get(i), "log", s.runs().path().toString()),
            Duration.ZERO).with(JobOptions.defaults().maxAttempts(10)));
      }
      jobs.add(JobRequest.delay("test_sleep", s.runs().payload(0), Duration.ZERO));
    }
    List<String> ids = s.queue().enqueueAll(jobs).stream().map(dev.delayq.EnqueueResult::id).toList();
    List<String> poison = new ArrayList<>();
    int at = 0;
    for (int i = 0; i < n; i++) {
      if (poisonAt.containsKey(i)) {
        poison.add(ids.get(at++));
      }
      at++;
    }
    return poison;
  }

  /** Every quick job started exactly once, at attempt 1, and ended. */
  private static void assertEachRanOnceAtAttemptOne(Runs runs, int n, Set<String> poison) {
    Map<String, List<Integer>> starts = runs.startedAttempts(poison);
    assertEquals(n, starts.size(), "lost 0");
    starts.forEach((id, attempts) -> assertEquals(List.of(1), attempts, id + " started " + attempts));
  }

  private static void assertPoisonPill(Setup s, Runs runs, String id) {
    UnifiedJedis redis = RedisFixture.get().redis();
    assertTrue(redis.zscore(s.keys().dead(), id) != null, id + " is dead");
    assertEquals(List.of(1, 2, 3), runs.of("start", id).stream().map(Runs.Run::attempt).toList(),
        "it killed its worker three times");
    String record = redis.hget(s.keys().jobs(), id);
    assertTrue(record.contains("poison pill: 3 deliveries were lost with their worker"), record);
  }

  @Test
  void aJobThatHaltsItsWorkerIsDeadAfterThreeCrashesAndThe299BehindItRunOnceAtAttemptOne() throws Exception {
    Setup s = setup();
    List<String> poison = enqueue(s, 299, Map.of(100, "halt"));
    try (SupervisorProcess sup = SupervisorProcess.start(home, config(1, SupervisorProcess.LEAN_JVMS), s.env())) {
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
          .until(() -> RedisFixture.get().redis().hlen(s.keys().jobs()) == 1
              && RedisFixture.get().redis().zcard(s.keys().dead()) == 1);

      assertPoisonPill(s, s.runs(), poison.get(0));
      assertEachRanOnceAtAttemptOne(s.runs(), 299, Set.copyOf(poison));
      assertEquals(3, sup.child("worker-1").orElseThrow().path("restarts").asInt());
      assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), s.keys()).breaches());
    }
  }

  @Test
  void systemExitAndOutOfMemoryInAHandlerKillOnlyTheirOwnJobAndTheOtherThousandAreDoneOnce() throws Exception {
    Setup s = setup();
    List<String> poison = enqueue(s, 1_000, Map.of(200, "exit", 600, "oom"));
    // the default worker JVM options: -XX:+ExitOnOutOfMemoryError ends the JVM on the OOM
    try (SupervisorProcess sup = SupervisorProcess.start(home, config(2, ""), s.env())) {
      await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
          .until(() -> RedisFixture.get().redis().hlen(s.keys().jobs()) == 2
              && RedisFixture.get().redis().zcard(s.keys().dead()) == 2);

      for (String id : poison) {
        assertPoisonPill(s, s.runs(), id);
      }
      assertEachRanOnceAtAttemptOne(s.runs(), 1_000, Set.copyOf(poison));
      assertTrue(sup.output().contains("exited with code 3"), "the OOM ended its JVM with code 3:\n" + sup.output());
      assertTrue(sup.output().contains("exited with code 71"), "System.exit: code 71:\n" + sup.output());
      assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), s.keys()).breaches());
    }
  }
}
