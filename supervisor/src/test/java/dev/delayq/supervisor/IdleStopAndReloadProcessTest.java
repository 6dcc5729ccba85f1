package dev.delayq.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code reload --workers 0} says, and how soon {@code stop} of an idle system returns. */
class IdleStopAndReloadProcessTest {
  @TempDir
  Path home;

  @BeforeAll
  static void childJarsAreBuilt() {
    SupervisorProcess.requireChildJars();
  }

  @Test
  void reloadToZeroWorkersSaysThatNoJobWillRunAndStillDoesIt() throws Exception {
    try (SupervisorProcess sup = SupervisorProcess.start(home, SupervisorProcess.ONE_QUICK_WORKER,
        SupervisorProcess.testRedisEnv())) {
      sup.awaitRunning(2);

      SupervisorProcess.CliResult r = sup.run("reload", "--workers", "0");

      assertEquals(0, r.code(), r.output());
      assertTrue(r.output().contains("workers: 1 -> 0; no job will run until workers are added again "
          + "(reload --workers N); the scheduler keeps moving due jobs to ready, where they wait"), r.output());
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
          .until(() -> sup.children("worker").isEmpty());
    }
  }

  @Test
  void stopOfAnIdleSystemReturnsAsSoonAsTheSupervisorIsDown() throws Exception {
    Map<String, String> env = SupervisorProcess.testRedisEnv(); // the dashboard on, as by default
    try (SupervisorProcess sup = SupervisorProcess.start(home, SupervisorProcess.ONE_QUICK_WORKER, env)) {
      sup.awaitRunning(2);
      AtomicLong exitedAtMs = new AtomicLong();
      sup.process.onExit().thenRun(() -> exitedAtMs.set(System.currentTimeMillis()));

      SupervisorProcess.CliResult r = sup.run("stop");
      long returnedAtMs = System.currentTimeMillis();

      assertEquals(0, r.code(), r.output());
      assertTrue(sup.process.waitFor(5, TimeUnit.SECONDS), "the supervisor is gone when stop returns");
      Matcher stopped = Pattern.compile("(\\S+) INFO  \\[main\\] StartCommand - delayq supervisor \\d+ stopped")
          .matcher(sup.output());
      assertTrue(stopped.find(), sup.output());
      long stoppedAtMs = OffsetDateTime.parse(stopped.group(1)).toInstant().toEpochMilli();
      long lingeredMs = exitedAtMs.get() - stoppedAtMs;
      // what is left after "stopped" is closing sockets and files: milliseconds. It was at least
      // the full second the dashboard's HttpServer.stop(1) sleeps on JDK 17, idle or not; 800 ms
      // is far above the first under load and still below the second
      assertTrue(lingeredMs < 800, "the supervisor process lived " + lingeredMs + " ms after logging stopped");
      // stop looks at the supervisor every 20 ms (ProcessHandle.onExit of a process not its
      // child sleeps 300 ms and more between looks); the rest is the CLI's own exit
      assertTrue(returnedAtMs - exitedAtMs.get() < 1500,
          "stop returned " + (returnedAtMs - exitedAtMs.get()) + " ms after the supervisor exited");
    }
  }
}
