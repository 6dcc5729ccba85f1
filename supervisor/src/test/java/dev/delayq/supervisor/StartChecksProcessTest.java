package dev.delayq.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.supervisor.cli.SupervisorCli;
import dev.delayq.testing.RedisFixture;
import dev.delayq.redisserver.RedisServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start that cannot work says why on the terminal at once and exits 1, before any scheduler
 * or worker starts: Redis unreachable or refusing the password, the embedded Redis's port taken,
 * a config that is not YAML. A misspelled DELAYQ_* variable is named once.
 */
class StartChecksProcessTest {
  @TempDir
  Path home;

  @BeforeAll
  static void childJarsAreBuilt() {
    SupervisorProcess.requireChildJars();
  }

  /** Starts a supervisor that should refuse; its exit code and output, once it ended (at most 30 s). */
  private SupervisorProcess.CliResult refusedStart(String yaml, Map<String, String> env) throws Exception {
    try (SupervisorProcess sup = SupervisorProcess.start(home, yaml, env)) {
      assertTrue(sup.process.waitFor(30, TimeUnit.SECONDS),
          "the supervisor gives up at once rather than crash-looping its children:\n" + sup.output());
      return new SupervisorProcess.CliResult(sup.process.exitValue(), sup.output());
    }
  }

  private static void noChildStarted(String output) {
    assertFalse(output.contains("scheduler STOPPED -> STARTING") || output.contains("worker-1 STOPPED -> STARTING"),
        "no scheduler or worker was started:\n" + output);
  }

  @Test
  void anUnreachableRedisIsSaidOnTheTerminalBeforeAnyChildStarts() throws Exception {
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    int nobody = RedisFixture.freePort();
    env.put("DELAYQ_REDIS_URL", "redis://127.0.0.1:" + nobody);
    env.put("DELAYQ_WORKER_THREADZ", "4");

    SupervisorProcess.CliResult r = refusedStart(SupervisorProcess.ONE_QUICK_WORKER, env);

    assertEquals(1, r.code(), r.output());
    assertTrue(r.output().contains("delayq: cannot start: Redis redis://127.0.0.1:" + nobody), r.output());
    assertTrue(r.output().contains("is unreachable (Connection refused): check redis.url (DELAYQ_REDIS_URL)"),
        r.output());
    noChildStarted(r.output());
    String warning = "delayq: warning: DELAYQ_WORKER_THREADZ is not a delayq variable and is ignored; "
        + "did you mean DELAYQ_WORKER_THREADS (worker.threads)?";
    assertEquals(1, r.output().split(java.util.regex.Pattern.quote(warning), -1).length - 1,
        "the misspelled variable is named once:\n" + r.output());
  }

  @Test
  void withDaemonTheLauncherReturnsAtOnceWithTheReason() throws Exception {
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    int nobody = RedisFixture.freePort();
    env.put("DELAYQ_REDIS_URL", "redis://127.0.0.1:" + nobody);
    Path config = home.resolve("delayq.yml");
    Files.createDirectories(home);
    Files.writeString(config, SupervisorProcess.ONE_QUICK_WORKER);
    Path out = home.resolve("launcher.out");

    long began = System.nanoTime();
    Process launcher = SupervisorProcess.cli(home, env, List.of("start", "--config", config.toString(), "--daemon"))
        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
    boolean ended;
    try {
      ended = launcher.waitFor(30, TimeUnit.SECONDS);
    } finally {
      launcher.destroyForcibly();
      backgroundSupervisorGone(); // one that did start (before the check) would outlive the test
    }
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);

    String output = Files.readString(out);
    assertTrue(ended, "start --daemon returned (it waited for children that could never run):\n" + output);
    assertEquals(1, launcher.exitValue(), output);
    assertTrue(output.contains("delayq: cannot start: Redis redis://127.0.0.1:" + nobody), output);
    assertTrue(output.contains("is unreachable"), output);
    // two JVM starts and the check: seconds, where it used to be the 40 s of children giving up
    assertTrue(tookMs < 20_000, "start --daemon took " + tookMs + " ms");
  }

  /** Kills the supervisor that run/supervisor.pid names, if it still runs (its children follow it). */
  private void backgroundSupervisorGone() throws Exception {
    Path pidFile = home.resolve("run/supervisor.pid");
    if (Files.isRegularFile(pidFile)) {
      String text = Files.readString(pidFile).trim();
      if (text.matches("\\d+")) {
        ProcessHandle.of(Long.parseLong(text))
            .filter(h -> h.info().commandLine().map(c -> c.contains(SupervisorCli.class.getName())).orElse(false))
            .ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  @Test
  void aRedisThatWantsAPasswordIsSaidWithWhereThePasswordGoes() throws Exception {
    try (RedisServer locked = RedisServer.start("--requirepass", "start-check-pass")) {
      Map<String, String> env = SupervisorProcess.testRedisEnv();
      env.put("DELAYQ_REDIS_URL", "redis://:not-this-one@127.0.0.1:" + locked.port());

      SupervisorProcess.CliResult r = refusedStart(SupervisorProcess.ONE_QUICK_WORKER, env);

      assertEquals(1, r.code(), r.output());
      assertTrue(r.output().contains("delayq: cannot start: Redis at 127.0.0.1:" + locked.port()
          + " refused the password this process gave (WRONGPASS"), r.output());
      assertTrue(r.output().contains("DELAYQ_REDIS_URL") && r.output().contains("run/redis.password"), r.output());
      assertFalse(r.output().contains("not-this-one") || r.output().contains("start-check-pass"), r.output());
      noChildStarted(r.output());
    }
  }

  @Test
  void aTakenEmbeddedPortNamesTheKeyAndItsVariableOnceWithoutAStackTrace() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      Map<String, String> env = SupervisorProcess.testRedisEnv();
      env.put("DELAYQ_REDIS_URL", "");
      env.put("DELAYQ_REDIS_EMBEDDED_PORT", Integer.toString(taken.getLocalPort()));

      SupervisorProcess.CliResult r = refusedStart(SupervisorProcess.ONE_QUICK_WORKER, env);

      assertEquals(1, r.code(), r.output());
      String line = "delayq: cannot start: the embedded Redis cannot listen on 127.0.0.1:" + taken.getLocalPort()
          + ", another process holds that port: set redis.embeddedPort (DELAYQ_REDIS_EMBEDDED_PORT) to a free "
          + "port, or stop what holds it";
      assertEquals(1, r.output().split(java.util.regex.Pattern.quote(line), -1).length - 1, "once:\n" + r.output());
      assertFalse(r.output().contains("Address already in use"), "not the redis log's line:\n" + r.output());
      assertFalse(r.output().contains("\tat "), "no stack trace:\n" + r.output());
      noChildStarted(r.output());
    }
  }

  @Test
  void aYamlSyntaxErrorNamesTheFileLineAndColumn() throws Exception {
    SupervisorProcess.CliResult r = refusedStart("""
        worker:
          processes: 1
         threads: 2
        """, SupervisorProcess.testRedisEnv());

    assertEquals(1, r.code(), r.output());
    assertTrue(r.output().contains("delayq: config file " + home.resolve("delayq.yml")
        + ": not valid YAML at line 3, column 2"), r.output());
  }
}
