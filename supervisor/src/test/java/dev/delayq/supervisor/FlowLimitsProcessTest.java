package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobRequest;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;

/**
 * Issue 13's rate limit and concurrency cap scenarios with the real supervisor and two worker
 * JVMs: queue.limits is enforced in the claim across both, counted from the handlers' own start
 * and end times in the ledger of runs.
 */
class FlowLimitsProcessTest {
  @TempDir
  Path home;

  @BeforeAll
  static void childJarsAreBuilt() {
    SupervisorProcess.requireChildJars();
  }

  /**
   * 100/s on a type with 2,000 due jobs across 2 workers: no one-second window (sliding, by ms)
   * holds more than 100 starts plus a slack of 5 (the claim is counted in Redis, the start is
   * stamped by the handler a moment later on another thread, so a window's edges may shift by
   * that moment); all 2,000 run once and none fails.
   */
  @Test
  void aRateLimitOf100PerSecondHoldsInEverySecondAcrossTwoWorkersAndEveryJobRunsOnce() throws Exception {
    int jobs = 2_000;
    int limit = 100;
    int slack = 5;
    Env e = env();
    try (SupervisorProcess sup = SupervisorProcess.start(home, """
        queue:
          limits:
            - type: test_timed
              rate: 100/1s
        worker:
          processes: 2
          threads: 4
          pollTimeout: 500ms
          drainTimeout: 5s
        supervisor:
          stopTimeout: 10s
        """ + SupervisorProcess.LEAN_JVMS, e.env)) {
      await().atMost(Duration.ofSeconds(60)).until(() -> e.redis.zcard(e.keys.consumers()) == 8);
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < jobs; i++) {
        requests.add(JobRequest.delay("test_timed", e.runs.payload(0), Duration.ofMillis(500)));
      }
      e.producer.enqueueAll(requests);

      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
          .until(() -> e.redis.hlen(e.keys.jobs()) == 0);
      Thread.sleep(500);
      long[] starts = e.runs.all().stream().filter(r -> r.what().equals("start")).mapToLong(Runs.Run::atMs)
          .sorted().toArray();
      int busiest = 0;
      for (int i = 0, j = 0; i < starts.length; i++) {
        while (starts[i] - starts[j] >= 1000) {
          j++;
        }
        busiest = Math.max(busiest, i - j + 1);
      }
      double seconds = (starts[starts.length - 1] - starts[0]) / 1000.0;
      System.out.printf("rate limit 100/s: busiest one-second window %d starts; %d starts over %.1f s%n",
          busiest, starts.length, seconds);
      assertTrue(busiest <= limit + slack, "the busiest second held " + busiest + " starts");
      assertTrue(seconds >= (jobs - limit - slack) / (double) (limit + slack),
          "2,000 jobs at 100/s take about 19 s, took " + seconds);
      Map<String, List<Integer>> attempts = e.runs.startedAttempts(Set.of());
      assertEquals(jobs, attempts.size(), "lost 0");
      attempts.forEach((id, a) -> assertEquals(List.of(1), a, id + " ran " + a + ": none failed, none ran twice"));
      assertEquals(0, e.inspector.depths().dead());
      assertEquals(List.of(), e.inspector.check());
    }
  }

  /**
   * A cap of 3 on 5 s jobs across 2 workers of 8 threads each: never more than 3 run at once.
   * The worker holding 2 (or 3) of them is SIGKILLed; their slots free with the supervisor's
   * recovery of its jobs, which run again (attempt 2), and still no more than 3 at once.
   */
  @Test
  void aConcurrencyCapOf3HoldsAcrossTwoWorkersAndAKilledHoldersSlotsFreeWithItsRecovery() throws Exception {
    int jobs = 9;
    Env e = env();
    try (SupervisorProcess sup = SupervisorProcess.start(home, """
        queue:
          limits:
            - type: test_timed
              concurrency: 3
        worker:
          processes: 2
          threads: 8
          pollTimeout: 500ms
          drainTimeout: 5s
        supervisor:
          stopTimeout: 10s
        """ + SupervisorProcess.LEAN_JVMS, e.env)) {
      await().atMost(Duration.ofSeconds(60)).until(() -> e.redis.zcard(e.keys.consumers()) == 16);
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < jobs; i++) {
        requests.add(JobRequest.delay("test_timed", e.runs.payload(5_000), Duration.ZERO));
      }
      e.producer.enqueueAll(requests);

      await().atMost(Duration.ofSeconds(20)).until(() -> running(e.runs).size() == 3);
      Thread.sleep(500);
      Map<Long, Integer> perWorker = new HashMap<>();
      running(e.runs).forEach((id, pid) -> perWorker.merge(pid, 1, Integer::sum));
      long victim = perWorker.entrySet().stream().filter(x -> x.getValue() >= 2).findFirst().orElseThrow().getKey();
      Set<String> killedJobs = new java.util.HashSet<>();
      running(e.runs).forEach((id, pid) -> {
        if (pid == victim) {
          killedJobs.add(id);
        }
      });
      long killedAt = System.currentTimeMillis();
      ProcessHandle.of(victim).orElseThrow().destroyForcibly();

      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
          .until(() -> e.redis.hlen(e.keys.jobs()) == 0);
      Map<String, List<Integer>> attempts = e.runs.startedAttempts(Set.of());
      assertEquals(jobs, attempts.size(), "lost 0");
      attempts.forEach((id, a) -> assertEquals(killedJobs.contains(id) ? List.of(1, 2) : List.of(1), a,
          id + " ran " + a + (killedJobs.contains(id) ? " (killed once)" : "")));
      System.out.printf("cap 3: at most %d running at once; killed %s with its worker%n",
          maxRunningAtOnce(e.runs, victim, killedAt), killedJobs);
      assertTrue(maxRunningAtOnce(e.runs, victim, killedAt) <= 3,
          "at most 3 at once, the killed runs counted until the kill: " + maxRunningAtOnce(e.runs, victim, killedAt));
      assertEquals(0, e.inspector.depths().dead());
      assertEquals(List.of(), e.inspector.check());
    }
  }

  /** The runs started and not ended, id -> worker pid. */
  private static Map<String, Long> running(Runs runs) {
    Map<String, Long> open = new HashMap<>();
    for (Runs.Run r : runs.all()) {
      if (r.what().equals("start")) {
        open.put(r.id() + "#" + r.attempt(), r.pid());
      } else {
        open.remove(r.id() + "#" + r.attempt());
      }
    }
    Map<String, Long> out = new HashMap<>();
    open.forEach((k, pid) -> out.put(k.substring(0, k.lastIndexOf('#')), pid));
    return out;
  }

  /** The most runs open at one moment; a run of the killed worker with no end ends at the kill. */
  private static int maxRunningAtOnce(Runs runs, long victim, long killedAt) {
    List<long[]> edges = new ArrayList<>();
    Map<String, Runs.Run> open = new HashMap<>();
    for (Runs.Run r : runs.all()) {
      String key = r.id() + "#" + r.attempt() + "#" + r.pid();
      if (r.what().equals("start")) {
        open.put(key, r);
        edges.add(new long[] {r.atMs(), 1});
      } else {
        open.remove(key);
        edges.add(new long[] {r.atMs(), -1});
      }
    }
    open.values().forEach(r -> edges.add(new long[] {r.pid() == victim ? killedAt : Long.MAX_VALUE, -1}));
    // ends before starts at the same ms: a slot handed on within one ms is not two at once
    edges.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    int now = 0;
    int max = 0;
    for (long[] edge : edges) {
      now += (int) edge[1];
      max = Math.max(max, now);
    }
    return max;
  }

  private record Env(Map<String, String> env, Keys keys, UnifiedJedis redis, Inspector inspector,
      DelayQueue producer, Runs runs) {}

  private Env env() throws Exception {
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    Keys keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    UnifiedJedis redis = RedisFixture.get().redis();
    return new Env(env, keys, redis, new Inspector(redis, keys),
        new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5), new Runs(home.resolve("runs.log")));
  }
}
