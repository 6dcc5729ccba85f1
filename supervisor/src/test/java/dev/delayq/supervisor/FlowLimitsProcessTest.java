package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobRequest;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;

/**
 * Issue 13's rate limit and concurrency cap scenarios with the real supervisor and two worker
 * JVMs: queue.limits is enforced in the claim across both, counted from the limiter's window in
 * Redis (the rate) and from the handlers' own start and end times in the ledger of runs (the cap).
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
   * holds more than 100 admitted starts, read from the limiter's own window in Redis as the claims
   * fill it (stamped with the Redis time the claim counted them at: the handler's own stamp comes
   * a moment later on another thread, a moment that a loaded host stretches past any fixed
   * slack); the last handler starts 19 s or more after the first admission; all 2,000 run once
   * and none fails.
   */
  @Test
  void aRateLimitOf100PerSecondHoldsInEverySecondAcrossTwoWorkersAndEveryJobRunsOnce() throws Exception {
    int jobs = 2_000;
    int limit = 100;
    Env e = env();
    try (SupervisorProcess sup = SupervisorProcess.start(home, """
        queue:
          limits:
            - type: test_timed
              rate: 100/1s
        """ + SupervisorProcess.quickWorkers(2, 4), e.env)) {
      await().atMost(Duration.ofSeconds(60)).until(() -> e.redis.zcard(e.keys.consumers()) == 8);
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < jobs; i++) {
        requests.add(JobRequest.delay("test_timed", e.runs.payload(0), Duration.ofMillis(500)));
      }
      Map<String, Double> admitted = new ConcurrentHashMap<>();
      String window = e.keys.rateWindow("test_timed", null);
      AtomicBoolean done = new AtomicBoolean();
      // each admission stays in the window for its period (1 s): a look every 20 ms sees them all
      Thread looker = new Thread(() -> {
        while (!done.get()) {
          e.redis.zrangeWithScores(window, 0, -1).forEach(t -> admitted.put(t.getElement(), t.getScore()));
          LockSupport.parkNanos(20_000_000);
        }
      }, "rate-window-looker");
      looker.start();
      e.producer.enqueueAll(requests);

      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
          .until(() -> e.redis.hlen(e.keys.jobs()) == 0);
      Thread.sleep(500);
      done.set(true);
      looker.join();
      assertEquals(jobs, admitted.size(), "every admission seen in the limiter's window");
      long[] admissions = admitted.values().stream().mapToLong(Double::longValue).sorted().toArray();
      int busiest = 0;
      for (int i = 0, j = 0; i < admissions.length; i++) {
        while (admissions[i] - admissions[j] >= 1000) {
          j++;
        }
        busiest = Math.max(busiest, i - j + 1);
      }
      long lastStart = e.runs.all().stream().filter(r -> r.what().equals("start")).mapToLong(Runs.Run::atMs)
          .max().orElseThrow();
      double seconds = (lastStart - admissions[0]) / 1000.0;
      System.out.printf("rate limit 100/s: busiest one-second window %d admitted starts; the last of %d started "
          + "%.1f s after the first admission%n", busiest, admissions.length, seconds);
      assertTrue(busiest <= limit, "the busiest second admitted " + busiest + " starts");
      assertTrue(seconds >= (jobs - limit) / (double) limit,
          "2,000 jobs at 100/s take 19 s and more, took " + seconds);
      Map<String, List<Integer>> attempts = e.runs.startedAttempts(Set.of());
      assertEquals(jobs, attempts.size(), "lost 0");
      attempts.forEach((id, a) -> assertEquals(List.of(1), a, id + " ran " + a + ": none failed, none ran twice"));
      assertEquals(0, e.inspector.depths().dead());
      assertEquals(List.of(), e.invariant.breaches());
    }
  }

  /**
   * A cap of 3 on 5 s jobs across 2 workers of 8 threads each: never more than 3 run at once.
   * The worker holding 2 (or 3) of them is SIGKILLed; their slots free with the supervisor's
   * recovery of its jobs, which run again (attempt 2), and still no more than 3 at once. Six
   * jobs: after the kill five wait (three never started, two taken back) for the two freed slots
   * and the survivor's one, so the cap still gates every start; each job more past that only
   * adds a 5 s wave.
   */
  @Test
  void aConcurrencyCapOf3HoldsAcrossTwoWorkersAndAKilledHoldersSlotsFreeWithItsRecovery() throws Exception {
    int jobs = 6;
    Env e = env();
    try (SupervisorProcess sup = SupervisorProcess.start(home, """
        queue:
          limits:
            - type: test_timed
              concurrency: 3
        """ + SupervisorProcess.quickWorkers(2, 8), e.env)) {
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
      assertEquals(List.of(), e.invariant.breaches());
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
      InvariantCheck invariant, DelayQueue producer, Runs runs) {}

  private Env env() throws Exception {
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    Keys keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    UnifiedJedis redis = RedisFixture.get().redis();
    return new Env(env, keys, redis, new Inspector(redis, keys), new InvariantCheck(redis, keys),
        new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5), new Runs(home.resolve("runs.log")));
  }
}
