package dev.delayq.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.host.Home;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The supervisor's control loop, stepped by the test: children are {@link FakeLauncher}'s
 * processes, which exit when told, and time is a clock that moves only when told. Instant
 * recovery and the drain report read the real Redis of the test fixture. No process is
 * started and nothing sleeps.
 */
class SupervisorControlLoopTest {
  private static final int INTENSITY = 3;
  private static final Duration PERIOD = Duration.ofSeconds(60);
  private static final Duration BACKOFF_MIN = Duration.ofSeconds(2);

  @TempDir
  Path home;

  private final FakeLauncher launcher = new FakeLauncher();
  private long now = 5_000_000_000L;
  private Supervisor supervisor;

  @BeforeEach
  void startWithEmbeddedRedisSchedulerAndTwoWorkers() throws Exception {
    DelayqConfig config = new ConfigLoader().load(null, Map.of(
        "DELAYQ_SUPERVISOR_RESTART_BACKOFF_MIN", BACKOFF_MIN.toSeconds() + "s",
        "DELAYQ_SUPERVISOR_RESTART_BACKOFF_MAX", "60s",
        "DELAYQ_SUPERVISOR_RESTART_INTENSITY", Integer.toString(INTENSITY),
        "DELAYQ_SUPERVISOR_RESTART_PERIOD", PERIOD.toSeconds() + "s"));
    assertTrue(config.redis().embedded(), "the default configuration embeds Redis");
    ChildSpecs specs = new ChildSpecs(new Home(SupervisorProcess.INSTALL, home), config, null, "test-password");
    Keys keys = RedisFixture.freshKeys();
    Inspector inspector = new Inspector(RedisFixture.get().redis(), keys);
    InstantRecovery recovery = new InstantRecovery(RedisFixture.get().broker(keys), inspector, 3, "h1", home);
    supervisor = new Supervisor(specs, launcher, recovery,
        new QueueInspectors(config.queue().name(), Map.of(config.queue().name(), inspector)), 2, () -> now,
        () -> {});
    supervisor.startAll();
    supervisor.handlePending();
  }

  private void advance(Duration d) {
    now += d.toNanos();
    supervisor.tick();
    supervisor.handlePending();
  }

  private ChildView child(String name) {
    CompletableFuture<Overview> overview = supervisor.overview();
    supervisor.handlePending();
    return overview.join().children().stream().filter(c -> c.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no child " + name));
  }

  private void crash(String name) {
    launcher.process(name).exit(1);
    supervisor.handlePending();
  }

  @Test
  void redisAnswersBeforeTheSchedulerAndTheWorkersStart() {
    assertEquals(List.of("launch redis", "redis answers", "launch scheduler", "launch worker-1", "launch worker-2"),
        launcher.journal);
    assertEquals("STARTING", child("worker-1").state());
    advance(Duration.ofSeconds(1));
    assertEquals("RUNNING", child("worker-1").state());
  }

  @Test
  void aCrashedWorkerWaitsOutItsBackoffThenStartsThenRuns() {
    advance(Duration.ofSeconds(1));
    long firstPid = child("worker-1").pid();

    crash("worker-1");
    assertEquals("BACKOFF", child("worker-1").state());

    advance(BACKOFF_MIN.minusMillis(1));
    assertEquals("BACKOFF", child("worker-1").state(), "still inside its backoff");
    assertEquals(1, launcher.entries("launch").stream().filter(l -> l.equals("launch worker-1")).count());

    advance(Duration.ofMillis(1));
    ChildView restarted = child("worker-1");
    assertEquals("STARTING", restarted.state());
    assertEquals(1, restarted.restarts());
    assertTrue(restarted.pid() != firstPid, "a new process: " + restarted.pid());

    advance(Duration.ofSeconds(1));
    assertEquals("RUNNING", child("worker-1").state());
    assertEquals("RUNNING", child("worker-2").state(), "the other worker was left alone");
  }

  @Test
  void oneRestartMoreThanTheIntensityWithinThePeriodLeavesTheChildFatal() {
    Duration backoff = BACKOFF_MIN;
    for (int restart = 1; restart <= INTENSITY; restart++) {
      crash("worker-1");
      advance(backoff);
      backoff = backoff.multipliedBy(2);
      assertEquals("STARTING", child("worker-1").state(), "restart " + restart);
    }
    // 2s + 4s + 8s after the first crash: a fourth restart within the 60s period is one too many
    crash("worker-1");
    assertEquals("FATAL", child("worker-1").state());
    advance(Duration.ofMinutes(5));
    assertEquals("FATAL", child("worker-1").state(), "left down until a reload");
    assertEquals(1 + INTENSITY, launcher.entries("launch").stream().filter(l -> l.equals("launch worker-1")).count());
  }

  @Test
  void asManyCrashesSpreadWiderThanThePeriodAreAllRestarted() {
    for (int restart = 1; restart <= 2 * INTENSITY; restart++) {
      crash("worker-1");
      advance(PERIOD.plusSeconds(1)); // past the longest backoff too (60s)
      assertEquals("STARTING", child("worker-1").state(), "restart " + restart);
    }
    assertEquals(2 * INTENSITY, child("worker-1").restarts());
  }

  @Test
  void aStopDrainsTheWorkersThenStopsTheSchedulerThenRedis() {
    advance(Duration.ofSeconds(1));
    CompletableFuture<Void> done = supervisor.stop(Duration.ofSeconds(30), "test", null);
    supervisor.handlePending();
    assertEquals(List.of("TERM worker-1", "TERM worker-2"), launcher.entries("TERM"));

    launcher.process("worker-1").exit(0);
    supervisor.handlePending();
    assertEquals(List.of("TERM worker-1", "TERM worker-2"), launcher.entries("TERM"), "a worker still drains");
    assertEquals("STOPPING", child("worker-2").state());

    advance(Duration.ofSeconds(30));
    assertEquals(List.of("KILL worker-2"), launcher.entries("KILL"), "SIGKILL at the stop timeout");
    launcher.process("worker-2").exit(137);
    supervisor.handlePending();
    assertEquals(List.of("TERM worker-1", "TERM worker-2", "TERM scheduler"), launcher.entries("TERM"));

    launcher.process("scheduler").exit(0);
    supervisor.handlePending();
    assertEquals(List.of("TERM worker-1", "TERM worker-2", "TERM scheduler", "TERM redis"), launcher.entries("TERM"));
    assertFalse(done.isDone(), "Redis is still writing its AOF");

    launcher.process("redis").exit(0);
    supervisor.handlePending();
    assertTrue(done.isDone(), "every child is down");
    assertEquals(4, launcher.entries("launch").size(), "nothing was started again during the stop");
  }
}
