package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.JobRequest;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole system under one real supervisor: its scheduler and worker JVMs, on the test Redis,
 * with a slow job type dropped into {@code jobs/}. The tests share that supervisor (starting
 * JVMs is the slow part) and run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RunningSystemProcessTest {
  @TempDir
  static Path home;
  static SupervisorProcess sup;
  static Keys keys;
  static DelayQueue queue;
  static Inspector inspector;
  static InvariantCheck invariant;

  @BeforeAll
  static void startSupervisorWithTwoWorkers() throws Exception {
    SupervisorProcess.requireChildJars();
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    queue = new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5);
    inspector = new Inspector(RedisFixture.get().redis(), keys);
    invariant = new InvariantCheck(RedisFixture.get().redis(), keys);
    sup = SupervisorProcess.start(home, """
        worker:
          processes: 2
          threads: 4
          pollTimeout: 500ms
          drainTimeout: 10s
        supervisor:
          stopTimeout: 15s
        """ + SupervisorProcess.LEAN_JVMS, env);
  }

  @AfterAll
  static void stopSupervisor() throws Exception {
    sup.close();
  }

  private static long running(String role) {
    return sup.children(role).stream().filter(c -> c.path("state").asText().equals("RUNNING")).count();
  }

  @Test
  @Order(1)
  void startShowsSchedulerAndTwoWorkersRunning() {
    await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200))
        .until(() -> running("scheduler") == 1 && running("worker") == 2);
    JsonNode status = sup.status().orElseThrow();
    List<String> names = new ArrayList<>();
    status.path("children").forEach(c -> names.add(c.path("name").asText()));
    assertEquals(List.of("scheduler", "worker-1", "worker-2"), names, "no embedded Redis: redis.url is set");
    status.path("children").forEach(c -> assertTrue(c.path("pid").asLong() > 0));
    assertTrue(status.path("queue").has("inFlight"));
  }

  @Test
  @Order(2)
  void killedWorkerIsReplacedAndItsJobRunsAgainWithinTwoSeconds() throws Exception {
    // RUNNING means alive past the start grace, not consuming: a JVM slow to start (a loaded CI
    // box took 5.8 s) would make this a measure of its start-up, not of the recovery
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> running("worker") == 2
        && sup.log("worker-1").contains(": started ") && sup.log("worker-2").contains(": started "));
    Runs runs = new Runs(home.resolve("kill-runs.log"));
    String id = queue.delay("test_sleep", runs.payload(3000), Duration.ZERO).id();
    await().atMost(Duration.ofSeconds(10)).until(() -> !runs.of("start", id).isEmpty());
    long victimPid = runs.of("start", id).get(0).pid();
    String victim = sup.children("worker").stream().filter(c -> c.path("pid").asLong() == victimPid)
        .findFirst().orElseThrow().path("name").asText();

    long killedAt = System.nanoTime();
    ProcessHandle.of(victimPid).orElseThrow().destroyForcibly();

    try {
      await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(20))
          .until(() -> runs.of("start", id).size() >= 2);
    } catch (ConditionTimeoutException e) {
      // one clean CI run saw this once: say where the job was, and what the supervisor and the
      // other worker did, so a next failure tells a slow recovery from a slow claim
      String other = victim.equals("worker-1") ? "worker-2" : "worker-1";
      throw new AssertionError("job " + id + " not started again 2 s after kill -9 of " + victim
          + "; now (" + (System.nanoTime() - killedAt) / 1_000_000 + " ms) it is in "
          + new QueueProbe(RedisFixture.get().broker(keys)).placesOf(id) + ", starts " + runs.of("start", id)
          + "\n--- supervisor\n" + tail(sup.output()) + "\n--- " + other + "\n" + tail(sup.log(other)), e);
    }
    double rerunAfter = (System.nanoTime() - killedAt) / 1e9;
    Runs.Run rerun = runs.of("start", id).get(1);
    assertNotEquals(victimPid, rerun.pid(), "it ran again in another worker");
    assertEquals(2, rerun.attempt(), "the lost delivery counts as an attempt");

    await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).until(() -> sup.child(victim)
        .map(c -> c.path("state").asText().equals("RUNNING") && c.path("pid").asLong() != victimPid).orElse(false));
    double replacedAfter = (System.nanoTime() - killedAt) / 1e9;
    JsonNode replaced = sup.child(victim).orElseThrow();
    assertEquals(137, replaced.path("lastExitCode").asInt());
    assertEquals(1, replaced.path("restarts").asInt());
    await().atMost(Duration.ofSeconds(10)).until(() -> !runs.of("end", id).isEmpty());
    System.out.printf("kill -9 %s: job %s ran again after %.2fs; replacement RUNNING after %.2fs%n",
        victim, id, rerunAfter, replacedAfter);
  }

  private static String tail(String log) {
    return log.lines().skip(Math.max(0, log.lines().count() - 40)).collect(Collectors.joining("\n"));
  }

  @Test
  @Order(3)
  void reloadFollowsTheWorkerCountUnderLoadAndLosesNoJob() throws Exception {
    await().atMost(Duration.ofSeconds(40)).until(() -> running("worker") == 2);
    Runs runs = new Runs(home.resolve("reload-runs.log"));
    // the jobs wait at the gate once started, until the new workers have taken some: under load
    // the two new JVMs came up after the last of 2,000 x 25 ms (and of 2,000 x 60 ms) had ended
    Path gate = home.resolve("reload-gate");
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      jobs.add(JobRequest.delay("test_sleep", runs.gatedPayload(25, gate), Duration.ZERO));
    }
    Set<String> ids = new HashSet<>();
    for (EnqueueResult r : queue.enqueueAll(jobs)) {
      ids.add(r.id());
    }

    SupervisorProcess.CliResult up = sup.run("reload", "--workers", "4", "--config", sup.config.toString());
    assertEquals(0, up.code(), up.output());
    assertTrue(up.output().contains("2 -> 4"), up.output());
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> running("worker") == 4);
    Set<Long> workerPids = new HashSet<>();
    sup.children("worker").forEach(c -> workerPids.add(c.path("pid").asLong()));
    // the new workers take jobs while the old ones hold theirs and the rest wait in ready
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> runs.all().stream()
        .filter(r -> r.what().equals("start")).map(Runs.Run::pid).collect(Collectors.toSet()).containsAll(workerPids));
    Files.createFile(gate);

    SupervisorProcess.CliResult down = sup.run("reload", "--workers", "1", "--config", sup.config.toString());
    assertEquals(0, down.code(), down.output());
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .until(() -> sup.children("worker").size() == 1 && running("worker") == 1);
    assertEquals("worker-1", sup.children("worker").get(0).path("name").asText(), "the highest-numbered go first");

    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() -> {
      Inspector.Depths d = inspector.depths();
      return d.records() == 0 && d.ready() == 0 && d.inFlight() == 0;
    });
    Set<String> ended = new HashSet<>();
    runs.all().stream().filter(r -> r.what().equals("end")).forEach(r -> ended.add(r.id()));
    assertEquals(ids, ended, "every job ran to its end");
    assertEquals(0, inspector.depths().dead());
    assertTrue(invariant.breaches().isEmpty(), "no breach of the invariant");
  }
}
