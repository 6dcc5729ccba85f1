package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;

/**
 * Issue 13's several queues with the real supervisor, scheduler and workers: start shares by
 * weight, strict order, and each queue on its own (check, dead jobs, dead retry per queue). The
 * queue of each start is known from the ids the producers got back.
 */
class SeveralQueuesProcessTest {
  @TempDir
  Path home;

  @BeforeAll
  static void childJarsAreBuilt() {
    SupervisorProcess.requireChildJars();
  }

  /**
   * Weights 6/3/1 with every queue holding more due jobs than the window counts: over the first
   * 3,000 starts each queue's share is within ±10 % of its own (60 ± 6, 30 ± 3, 10 ± 1 %). The
   * workers start once every job waits in ready (processes: 0, then reload),
   * so all three queues are backlogged from the first claim on, however loaded the machine.
   */
  @Test
  void weights631GiveStartSharesWithinTenPercentOf60_30_10WhileAllThreeAreBacklogged() throws Exception {
    Sys s = system("6", "3", "1");
    try (SupervisorProcess sup = SupervisorProcess.start(home, """
        worker:
          processes: 0
          threads: 4
          prefetch: 4
          pollTimeout: 500ms
          drainTimeout: 5s
        supervisor:
          stopTimeout: 10s
        """ + SupervisorProcess.LEAN_JVMS, s.env)) {
      awaitScheduler(sup);
      Map<String, String> queueOf = s.enqueue(2_500, Duration.ZERO);
      s.awaitReady(2_500);
      sup.reload(2);

      await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
          .until(() -> s.starts().size() >= 3_000);
      List<String> first = s.starts().subList(0, 3_000);
      Map<String, Integer> count = new LinkedHashMap<>();
      s.queues.forEach(q -> count.put(q, 0));
      first.forEach(id -> count.merge(queueOf.get(id), 1, Integer::sum));
      System.out.printf("weights 6/3/1: first 3,000 starts %s%n", count);
      double[] expected = {0.6, 0.3, 0.1};
      for (int i = 0; i < 3; i++) {
        double share = count.get(s.queues.get(i)) / 3000.0;
        assertTrue(Math.abs(share - expected[i]) <= expected[i] * 0.10,
            s.queues.get(i) + " had " + share + " of the starts, expected " + expected[i] + " ± 10 %: " + count);
      }
      await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> s.allEmpty());
      for (String q : s.queues) {
        assertEquals(List.of(), s.invariant(q).breaches(), "check of " + q);
      }
    }
  }

  /**
   * strict: true with all three queues due: no default job starts while critical has due jobs,
   * and no low job while either has. Claimed one at a time (prefetch 1), a higher queue's job may
   * still start after a lower one's only when another consumer had claimed it just before: at most
   * the other consumers' number (3) of them. The worker starts once every job is in ready (due
   * jobs the scheduler has not forwarded yet are not claimable, whatever the order).
   */
  @Test
  void strictOrderStartsNoLowerJobWhileAHigherQueueHasDueJobs() throws Exception {
    Sys s = system("1", "1", "1");
    try (SupervisorProcess sup = SupervisorProcess.start(home, """
        worker:
          processes: 0
          threads: 4
          prefetch: 1
          strict: true
          pollTimeout: 500ms
          drainTimeout: 5s
        supervisor:
          stopTimeout: 10s
        """ + SupervisorProcess.LEAN_JVMS, s.env)) {
      awaitScheduler(sup);
      Map<String, String> queueOf = s.enqueue(200, Duration.ZERO);
      s.awaitReady(200);
      sup.reload(1);

      await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> s.allEmpty());
      List<String> order = s.starts().stream().map(queueOf::get).toList();
      assertEquals(600, order.size());
      int firstDefault = order.indexOf(s.queues.get(1));
      int firstLow = order.indexOf(s.queues.get(2));
      long criticalAfter = order.subList(firstDefault, order.size()).stream().filter(s.queues.get(0)::equals).count();
      long higherAfterLow = order.subList(firstLow, order.size()).stream().filter(q -> !q.equals(s.queues.get(2))).count();
      System.out.printf("strict: first default start #%d, first low #%d; critical after it %d, higher after low %d%n",
          firstDefault, firstLow, criticalAfter, higherAfterLow);
      assertTrue(criticalAfter <= 3, "critical starts after the first default one: " + criticalAfter);
      assertTrue(higherAfterLow <= 3, "critical/default starts after the first low one: " + higherAfterLow);
      for (String q : s.queues) {
        assertEquals(List.of(), s.invariant(q).breaches(), "check of " + q);
      }
    }
  }

  /**
   * Each queue on its own: a job that fails goes dead in its queue only; `check` is clean on
   * every queue; `dead retry --all --queue Q` retries Q's dead jobs and leaves the other's. The
   * supervisor's status, the dashboard's API (its queue picker's ?queue=) and /metrics (the
   * queue label) show each queue's own dead count.
   */
  @Test
  void deadJobsCheckAndDeadRetryArePerQueue() throws Exception {
    Sys s = system("2", "1", "1");
    try (SupervisorProcess sup = SupervisorProcess.start(home, SupervisorProcess.ONE_QUICK_WORKER, s.env)) {
      s.awaitConsumers(2);
      Path unlock = home.resolve("unlocked");
      Map<String, Object> payload = Map.of("unlock", unlock.toString(), "log", home.resolve("flaky.log").toString());
      JobOptions once = JobOptions.defaults().maxAttempts(1);
      for (int i = 0; i < 3; i++) {
        s.producers.get(0).delay("test_flaky", payload, Duration.ZERO, once);
      }
      for (int i = 0; i < 2; i++) {
        s.producers.get(2).delay("test_flaky", payload, Duration.ZERO, once);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> s.inspector(s.queues.get(0)).depths().dead() == 3
          && s.inspector(s.queues.get(2)).depths().dead() == 2);
      assertEquals(0, s.inspector(s.queues.get(1)).depths().dead());

      Cli queues = delayq(s.env, "queues");
      assertEquals(0, queues.code, queues.output);
      for (String q : s.queues) {
        assertTrue(queues.output.lines().anyMatch(l -> l.startsWith(q + " ")), queues.output);
      }
      assertTrue(queues.output.lines().anyMatch(l -> l.startsWith(s.queues.get(0) + " ") && l.matches(".*\\s3\\s+-$")),
          queues.output);
      for (String q : s.queues) {
        Cli check = delayq(s.env, "check", "--queue", q);
        assertEquals(0, check.code, q + ": " + check.output);
      }
      SupervisorProcess.CliResult status = sup.run("status");
      assertTrue(status.output().contains("queue " + s.queues.get(0) + ": 0 delayed, 0 ready, 0 in flight, 3 dead"),
          status.output());
      assertTrue(status.output().contains("queue " + s.queues.get(2) + ": 0 delayed, 0 ready, 0 in flight, 2 dead"),
          status.output());
      String token = Files.readString(home.resolve("run/web.token")).trim();
      WebClient web = new WebClient(sup.webUrl(), token);
      com.fasterxml.jackson.databind.JsonNode api = web.get("/api/status?queue=" + s.queues.get(2)).json();
      assertEquals(s.queues.get(2), api.path("queue").asText());
      assertEquals(s.queues.size(), api.path("queues").size(), api.toString());
      assertEquals(2, api.path("stats").path("depths").path("dead").asLong(), api.toString());
      assertEquals(0, web.get("/api/status").json().path("stats").path("depths").path("dead").asLong(),
          "no ?queue= is queue.name's");
      assertEquals(404, web.get("/api/status?queue=nope").status());
      String metrics = new WebClient(sup.webUrl()).get("/metrics").body();
      assertTrue(metrics.contains("delayq_queue_jobs{queue=\"" + s.queues.get(0) + "\",state=\"dead\"} 3.0"), metrics);
      assertTrue(metrics.contains("delayq_queue_jobs{queue=\"" + s.queues.get(2) + "\",state=\"dead\"} 2.0"), metrics);
      assertTrue(metrics.contains("delayq_queue_jobs{queue=\"" + s.queues.get(1) + "\",state=\"dead\"} 0.0"), metrics);

      Files.createFile(unlock);
      Cli retry = delayq(s.env, "dead", "retry", "--all", "--queue", s.queues.get(2));
      assertEquals(0, retry.code, retry.output);
      await().atMost(Duration.ofSeconds(30)).until(() -> s.inspector(s.queues.get(2)).depths().records() == 0);
      assertEquals(3, s.inspector(s.queues.get(0)).depths().dead(), "the other queue's dead jobs stay");
      assertEquals(2, Files.readAllLines(home.resolve("flaky.log")).size());
    }
  }

  /**
   * kill -9 of a worker of several queues while it runs jobs of them: the supervisor takes its
   * jobs back in each queue, only the ones whose handler was running charged (attempt 2), the
   * others run once; check is clean on every queue and nothing is lost.
   */
  @Test
  void aKilledWorkerOfSeveralQueuesHasItsJobsBackInEachQueueOnlyTheRunningOnesCharged() throws Exception {
    Sys s = system("1", "1", "1");
    try (SupervisorProcess sup = SupervisorProcess.start(home, """
        worker:
          processes: 1
          threads: 3
          prefetch: 2
          pollTimeout: 500ms
          drainTimeout: 5s
        supervisor:
          stopTimeout: 10s
        """ + SupervisorProcess.LEAN_JVMS, s.env)) {
      s.awaitConsumers(3);
      Map<String, String> queueOf = new HashMap<>();
      for (int q = 0; q < 3; q++) {
        for (int i = 0; i < 4; i++) {
          queueOf.put(s.producers.get(q).delay("test_timed", s.runs.payload(3_000), Duration.ZERO).id(), s.queues.get(q));
        }
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> s.starts().size() == 3);
      Thread.sleep(300);
      java.util.Set<String> running = new java.util.HashSet<>(s.starts());
      long pid = s.runs.all().get(0).pid();
      ProcessHandle.of(pid).orElseThrow().destroyForcibly();

      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).until(() -> s.allEmpty());
      Map<String, List<Integer>> attempts = s.runs.startedAttempts(java.util.Set.of());
      assertEquals(12, attempts.size(), "lost 0");
      attempts.forEach((id, a) -> assertEquals(running.contains(id) ? List.of(1, 2) : List.of(1), a,
          id + " of " + queueOf.get(id) + " ran " + a + (running.contains(id) ? " (running at the kill)" : "")));
      for (String q : s.queues) {
        assertEquals(List.of(), s.invariant(q).breaches(), "check of " + q);
        assertEquals(0, s.inspector(q).depths().dead(), q);
      }
    }
  }

  /** Until the supervisor answers on its socket with its scheduler RUNNING (it may take a while under load). */
  private static void awaitScheduler(SupervisorProcess sup) {
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).until(() -> sup.children("scheduler")
        .stream().anyMatch(c -> c.path("state").asText().equals("RUNNING")));
  }

  private record Cli(int code, String output) {}

  private Cli delayq(Map<String, String> env, String... args) throws Exception {
    SupervisorProcess.CliResult r = SupervisorProcess.delayq(home, env, args);
    return new Cli(r.code(), r.output());
  }

  /** Three queues (critical, default = queue.name, low) on the test Redis, a producer for each. */
  private record Sys(Map<String, String> env, List<String> queues, List<DelayQueue> producers, UnifiedJedis redis,
      Runs runs) {
    Inspector inspector(String queue) {
      return new Inspector(redis, new Keys("delayq", queue));
    }

    InvariantCheck invariant(String queue) {
      return new InvariantCheck(redis, new Keys("delayq", queue));
    }

    void awaitConsumers(int n) {
      await().atMost(Duration.ofSeconds(60)).until(() -> queues.stream()
          .allMatch(q -> redis.zcard(new Keys("delayq", q).consumers()) == n));
    }

    /** Until {@code perQueue} jobs wait in each queue's ready list (due at once, or forwarded). */
    void awaitReady(int perQueue) {
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> queues.stream()
          .allMatch(q -> redis.llen(new Keys("delayq", q).ready()) == perQueue));
    }

    /** {@code perQueue} test_timed jobs in each queue, due after {@code delay}; id -> queue. */
    Map<String, String> enqueue(int perQueue, Duration delay) {
      Map<String, String> queueOf = new HashMap<>();
      for (int q = 0; q < queues.size(); q++) {
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < perQueue; i++) {
          requests.add(JobRequest.delay("test_timed", runs.payload(1), delay));
        }
        for (EnqueueResult r : producers.get(q).enqueueAll(requests)) {
          queueOf.put(r.id(), queues.get(q));
        }
      }
      return queueOf;
    }

    /** The ids of the started runs, in the ledger's order (appends, in start order). */
    List<String> starts() {
      return runs.all().stream().filter(r -> r.what().equals("start")).map(Runs.Run::id).toList();
    }

    boolean allEmpty() {
      return queues.stream().allMatch(q -> redis.hlen(new Keys("delayq", q).jobs()) == 0);
    }
  }

  private Sys system(String critical, String normal, String low) throws Exception {
    JobsJar.install(home);
    Map<String, String> env = new HashMap<>(SupervisorProcess.testRedisEnv());
    String base = env.get("DELAYQ_QUEUE");
    List<String> queues = List.of(base + "-critical", base, base + "-low");
    env.put("DELAYQ_WORKER_QUEUES", queues.get(0) + ":" + critical + "," + queues.get(1) + ":" + normal + ","
        + queues.get(2) + ":" + low);
    UnifiedJedis redis = RedisFixture.get().redis();
    List<DelayQueue> producers = queues.stream()
        .map(q -> new DelayQueue(RedisFixture.get().broker(new Keys("delayq", q)), 1 << 20, 5)).toList();
    return new Sys(env, queues, producers, redis, new Runs(home.resolve("runs.log")));
  }
}
