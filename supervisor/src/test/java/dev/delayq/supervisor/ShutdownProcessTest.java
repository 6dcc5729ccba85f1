package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.redis.DelayedReads;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnector;
import dev.delayq.supervisor.control.Protocol;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;

/** How the supervisor ends: drained by SIGTERM, killed outright, and stopped then started again. */
class ShutdownProcessTest {
  @TempDir
  Path home;

  @BeforeAll
  static void childJarsAreBuilt() {
    SupervisorProcess.requireChildJars();
  }

  private static final String CONFIG = """
      worker:
        processes: %d
        threads: 2
        pollTimeout: 500ms
        drainTimeout: 10s
      supervisor:
        stopTimeout: 15s
      jvm:
        worker: "-Xms32m -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
        scheduler: "-Xms16m -Xmx96m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
      """;

  /** A supervisor running its own redis-server on a free port, data in home/data. */
  private Map<String, String> embeddedRedisEnv() throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("DELAYQ_REDIS_URL", "");
    env.put("DELAYQ_REDIS_EMBEDDED_PORT", Integer.toString(RedisFixture.freePort()));
    env.put("DELAYQ_QUEUE", RedisFixture.freshQueue());
    return env;
  }

  @Test
  void sigtermLetsTheJobInFlightFinishAndBeAcknowledgedBeforeExit() throws Exception {
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    Keys keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    try (SupervisorProcess sup = SupervisorProcess.start(home, CONFIG.formatted(1), env)) {
      sup.awaitRunning(2);
      Runs runs = new Runs(home.resolve("runs.log"));
      String id = new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5)
          .delay("test_sleep", runs.payload(3000), Duration.ZERO).id();
      await().atMost(Duration.ofSeconds(10)).until(() -> !runs.of("start", id).isEmpty());

      sup.process.destroy(); // SIGTERM
      assertTrue(sup.process.waitFor(30, TimeUnit.SECONDS), "the supervisor exits after the drain");

      assertEquals(0, sup.process.exitValue(), sup.output());
      assertEquals(1, runs.of("end", id).size(), "the job ran to its end");
      assertEquals(1, runs.of("start", id).size(), "and only once");
      assertFalse(RedisFixture.get().redis().hexists(keys.jobs(), id), "it was acknowledged");
      assertTrue(sup.output().contains("stopping (SIGTERM)"), sup.output());
      assertTrue(sup.output().contains("1 job(s) in flight"), "drain progress is shown:\n" + sup.output());
      assertFalse(Files.exists(sup.pidFile()));
      assertFalse(Files.exists(sup.socket()));
    }
  }

  @Test
  void killedSupervisorLeavesNoChildProcessWithinTenSeconds() throws Exception {
    try (SupervisorProcess sup = SupervisorProcess.start(home, CONFIG.formatted(2), embeddedRedisEnv())) {
      sup.awaitRunning(4);
      List<Long> children = new ArrayList<>();
      sup.status().orElseThrow().path("children").forEach(c -> children.add(c.path("pid").asLong()));
      assertEquals(4, children.size(), "redis, scheduler, 2 workers");

      sup.process.destroyForcibly(); // SIGKILL: no chance to clean up
      long killedAt = System.nanoTime();
      long supervisorPid = sup.process.pid();
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
          .until(() -> children.stream().noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
              && ProcessHandle.allProcesses().noneMatch(p -> p.info().commandLine()
                  .map(c -> c.contains("delayq-redis-watchdog " + supervisorPid + " ")).orElse(false)));
      System.out.printf("kill -9 supervisor: every child gone after %.1fs%n", (System.nanoTime() - killedAt) / 1e9);
    }
  }

  @Test
  void killedEmbeddedRedisIsRestartedAndKeepsItsJobs() throws Exception {
    Map<String, String> env = embeddedRedisEnv();
    int port = Integer.parseInt(env.get("DELAYQ_REDIS_EMBEDDED_PORT"));
    Keys keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    try (SupervisorProcess sup = SupervisorProcess.start(home, CONFIG.formatted(1), env)) {
      sup.awaitRunning(3);
      // the embedded Redis requires the password its supervisor keeps in run/
      String password = Files.readString(home.resolve("run/redis.password")).trim();
      try (UnifiedJedis redis = RedisConnector.open("redis://:" + password + "@127.0.0.1:" + port,
          "shutdown-test", 4, Duration.ofSeconds(2), Duration.ofSeconds(5))) {
        DelayQueue queue = new DelayQueue(new RedisBroker(redis, keys), 1 << 20, 5);
        String id = queue.delay("order_close", Map.of("order_id", 7), Duration.ofMinutes(10)).id();
        Thread.sleep(1500); // appendfsync everysec: let the AOF reach the disk before the crash
        long oldPid = sup.child("redis").orElseThrow().path("pid").asLong();

        ProcessHandle.of(oldPid).orElseThrow().destroyForcibly();

        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).until(() -> sup.child("redis")
            .map(c -> c.path("state").asText().equals("RUNNING") && c.path("pid").asLong() != oldPid).orElse(false));
        assertEquals(137, sup.child("redis").orElseThrow().path("lastExitCode").asInt());
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
            .until(() -> new DelayedReads(redis).score(keys, id) != null && redis.hexists(keys.jobs(), id));
        await().atMost(Duration.ofSeconds(10)).until(() -> sup.status()
            .map(s -> s.path("queue").path("delayed").asLong() == 1).orElse(false));
      }
    }
  }

  @Test
  void jobsEnqueuedBeforeStopRunAfterTheNextStart() throws Exception {
    JobsJar.install(home);
    Map<String, String> env = embeddedRedisEnv();
    Runs runs = new Runs(home.resolve("runs.log"));
    String id;
    try (SupervisorProcess first = SupervisorProcess.start(home, CONFIG.formatted(1), env)) {
      first.awaitRunning(3);
      // bin/delayq enqueue, reaching the embedded Redis through the same config and environment,
      // on the same home (whose run/ holds the embedded Redis's password)
      List<String> enqueue = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-cp", System.getProperty("java.class.path"), "dev.delayq.cli.DelayqCli", "enqueue",
          "--config", first.config.toString(), "--type", "test_sleep",
          "--payload", Protocol.JSON.writeValueAsString(runs.payload(0)), "--delay", "15s");
      ProcessBuilder builder = new ProcessBuilder(enqueue).redirectErrorStream(true);
      builder.environment().putAll(env);
      builder.environment().put("DELAYQ_HOME", home.toString());
      Process cli = builder.start();
      id = new String(cli.getInputStream().readAllBytes()).trim();
      assertEquals(0, cli.waitFor(), id);
      assertTrue(id.matches("[A-Za-z0-9_-]{10,}"), "prints the id: " + id);

      SupervisorProcess.CliResult stop = first.run("stop", "--config", first.config.toString());
      assertEquals(0, stop.code(), stop.output());
      assertTrue(runs.of("start", id).isEmpty(), "not due before the stop");
    }
    try (SupervisorProcess second = SupervisorProcess.start(home, CONFIG.formatted(1), env)) {
      await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200))
          .until(() -> !runs.of("end", id).isEmpty());
      assertEquals(1, runs.of("end", id).size());
    }
  }
}
