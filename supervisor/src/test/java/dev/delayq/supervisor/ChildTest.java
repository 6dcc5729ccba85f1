package dev.delayq.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The child state machine, driven by hand with a clock that only moves when told. */
class ChildTest {
  private long now = 1_000_000_000L;

  private Child child(ChildSpec.Restart restart, int intensity) {
    ChildSpec spec = new ChildSpec("worker-1", Role.WORKER, List.of("java"), Path.of("worker-1.log"), restart,
        Duration.ofSeconds(1), Duration.ofSeconds(30));
    return new Child(spec, new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60)),
        new RestartBudget(intensity, Duration.ofSeconds(60)), Duration.ofMinutes(10));
  }

  private void advance(Duration d) {
    now += d.toNanos();
  }

  @Test
  void launchedChildIsStartingUntilItsGraceHasPassed() {
    Child c = child(ChildSpec.Restart.TRANSIENT, 5);
    c.launched(42, now);
    advance(Duration.ofMillis(999));
    c.onTick(now);
    assertEquals(ChildState.STARTING, c.state());
    advance(Duration.ofMillis(1));
    c.onTick(now);
    assertEquals(ChildState.RUNNING, c.state());
    assertEquals(42, c.pid());
  }

  @Test
  void startingChildThatExitsNonZeroEntersBackoffAndIsDueAfterOneSecond() {
    Child c = child(ChildSpec.Restart.TRANSIENT, 5);
    c.launched(42, now);
    assertEquals(ChildState.BACKOFF, c.onExit(1, now));
    assertEquals(0, c.pid());
    advance(Duration.ofMillis(999));
    assertFalse(c.dueToStart(now));
    advance(Duration.ofMillis(1));
    assertTrue(c.dueToStart(now));
    c.launched(43, now);
    assertEquals(1, c.restarts());
    assertEquals(1, c.view(now).lastExitCode());
  }

  @Test
  void backoffDoublesWithEachCrashUpToItsMaximum() {
    Child c = child(ChildSpec.Restart.TRANSIENT, 100);
    long[] expectedSeconds = {1, 2, 4, 8, 16, 32, 60, 60};
    for (long seconds : expectedSeconds) {
      c.launched(7, now);
      c.onExit(137, now);
      advance(Duration.ofSeconds(seconds).minusMillis(1));
      assertFalse(c.dueToStart(now), "due before " + seconds + "s");
      advance(Duration.ofMillis(1));
      assertTrue(c.dueToStart(now), "not due after " + seconds + "s");
    }
  }

  @Test
  void backoffResetsAfterTenMinutesOfHealthyRunning() {
    Child c = child(ChildSpec.Restart.TRANSIENT, 100);
    for (int i = 0; i < 4; i++) {
      c.launched(7, now);
      c.onExit(1, now);
      advance(Duration.ofSeconds(60));
    }
    c.launched(8, now);
    advance(Duration.ofSeconds(1));
    c.onTick(now);
    advance(Duration.ofMinutes(10));
    c.onTick(now);
    c.onExit(1, now);
    advance(Duration.ofSeconds(1));
    assertTrue(c.dueToStart(now), "the backoff should be back at 1s");
  }

  @Test
  void moreRestartsThanTheIntensityWithinThePeriodMakeTheChildFatal() {
    Child c = child(ChildSpec.Restart.TRANSIENT, 2);
    c.launched(1, now);
    assertEquals(ChildState.BACKOFF, c.onExit(1, now));
    advance(Duration.ofSeconds(1));
    c.launched(2, now);
    assertEquals(ChildState.BACKOFF, c.onExit(1, now));
    advance(Duration.ofSeconds(2));
    c.launched(3, now);
    assertEquals(ChildState.FATAL, c.onExit(1, now));
    advance(Duration.ofHours(1));
    assertFalse(c.dueToStart(now), "a FATAL child waits for a reload");
  }

  @Test
  void crashesSpreadWiderThanThePeriodNeverMakeTheChildFatal() {
    Child c = child(ChildSpec.Restart.TRANSIENT, 2);
    for (int i = 0; i < 10; i++) {
      c.launched(i + 1, now);
      assertEquals(ChildState.BACKOFF, c.onExit(1, now));
      advance(Duration.ofSeconds(31));
    }
  }

  @Test
  void fatalChildIsStartedAfreshByAReload() {
    Child c = child(ChildSpec.Restart.TRANSIENT, 1);
    c.launched(1, now);
    c.onExit(1, now);
    advance(Duration.ofSeconds(1));
    c.launched(2, now);
    assertEquals(ChildState.FATAL, c.onExit(1, now));
    c.forgive();
    c.launched(3, now);
    assertEquals(ChildState.STARTING, c.state());
    assertEquals(ChildState.BACKOFF, c.onExit(1, now), "the budget starts over after a reload");
  }

  @Test
  void transientChildThatExitsZeroIsLeftAlone() {
    Child c = child(ChildSpec.Restart.TRANSIENT, 5);
    c.launched(9, now);
    advance(Duration.ofSeconds(5));
    c.onTick(now);
    assertEquals(ChildState.EXITED, c.onExit(0, now));
    advance(Duration.ofHours(1));
    assertFalse(c.dueToStart(now));
    assertEquals(0, c.restarts());
  }

  @Test
  void permanentChildIsRestartedEvenAfterExitZero() {
    Child c = child(ChildSpec.Restart.PERMANENT, 5);
    c.launched(9, now);
    assertEquals(ChildState.BACKOFF, c.onExit(0, now));
  }

  @Test
  void temporaryChildIsNeverRestarted() {
    Child c = child(ChildSpec.Restart.TEMPORARY, 5);
    c.launched(9, now);
    assertEquals(ChildState.EXITED, c.onExit(137, now));
  }

  @Test
  void stoppingChildIsStoppedWhateverItsExitCodeAndKilledOnceAtItsDeadline() {
    Child c = child(ChildSpec.Restart.TRANSIENT, 5);
    c.launched(9, now);
    c.stopping(now, Duration.ofSeconds(30), "stop");
    advance(Duration.ofSeconds(29));
    assertFalse(c.killDue(now));
    advance(Duration.ofSeconds(1));
    assertTrue(c.killDue(now));
    assertFalse(c.killDue(now), "SIGKILL is sent once");
    assertEquals(ChildState.STOPPED, c.onExit(137, now));
    assertFalse(c.dueToStart(now));
  }

  @Test
  void childInBackoffIsStoppedWithoutAProcess() {
    Child c = child(ChildSpec.Restart.TRANSIENT, 5);
    c.launched(9, now);
    c.onExit(1, now);
    c.stopIdle("stop");
    assertEquals(ChildState.STOPPED, c.state());
  }

  @Test
  void illegalMoveIsRefusedNamingBothStates() {
    Child c = child(ChildSpec.Restart.TRANSIENT, 5);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> c.moveTo(ChildState.RUNNING, "test"));
    assertTrue(e.getMessage().contains("STOPPED -> RUNNING"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> c.onExit(1, now), "no process, no exit");
  }

  @Test
  void everyStateHasALegalWayOutExceptNone() {
    for (ChildState s : ChildState.values()) {
      assertTrue(java.util.Arrays.stream(ChildState.values()).anyMatch(s::canMoveTo), s + " is a dead end");
      assertFalse(s.canMoveTo(s), s + " -> itself");
    }
    assertTrue(ChildState.BACKOFF.canMoveTo(ChildState.STARTING));
    assertFalse(ChildState.FATAL.canMoveTo(ChildState.RUNNING));
    assertFalse(ChildState.STOPPING.canMoveTo(ChildState.RUNNING));
  }

  @Test
  void viewShowsNoPidAndNoUptimeWhileDown() {
    Child c = child(ChildSpec.Restart.TRANSIENT, 5);
    ChildView before = c.view(now);
    assertNull(before.pid());
    assertNull(before.lastExitCode());
    c.launched(77, now);
    advance(Duration.ofMillis(1500));
    assertEquals(1500, c.view(now).uptimeMs());
    assertEquals("worker", c.view(now).role());
    c.onExit(1, now);
    assertEquals(0, c.view(now).uptimeMs());
  }
}
