package dev.delayq.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Watchdog}: {@code check(slot, now)} is called directly with crafted times; the slot's
 * thread is the test thread itself, so an interrupt shows as its interrupt flag.
 */
class WatchdogTest {
  private static final long MS = 1_000_000;
  private static final long LIMIT = 100 * MS;
  private static final long GRACE = 1_000 * MS;

  private final AtomicInteger stuckCalls = new AtomicInteger();
  private final Watchdog watchdog = new Watchdog(GRACE, stuckCalls::incrementAndGet);
  private final Watchdog.Slot slot = watchdog.register("c1", Thread.currentThread());

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
    watchdog.close();
  }

  @Test
  void slotWithinItsLimitIsLeftAlone() {
    long start = System.nanoTime();
    slot.begin("j1", LIMIT);

    watchdog.check(slot, start + LIMIT / 2);

    assertFalse(Thread.currentThread().isInterrupted());
    assertFalse(slot.end());
  }

  @Test
  void aRunPastTheSlowMarkIsToldAtEachLookAndAQuickOneNever() {
    java.util.List<String> told = new java.util.ArrayList<>();
    watchdog.onSlowRun(10 * MS, told::add);

    slot.begin("quick", LIMIT);
    watchdog.noteSlow(slot, System.nanoTime() + 5 * MS);
    assertFalse(slot.end());
    watchdog.noteSlow(slot, System.nanoTime() + 50 * MS);
    assertEquals(java.util.List.of(), told, "a run under the mark, then nothing running");

    slot.begin("slow", LIMIT);
    watchdog.noteSlow(slot, System.nanoTime() + 5 * MS);
    watchdog.noteSlow(slot, System.nanoTime() + 11 * MS);
    watchdog.noteSlow(slot, System.nanoTime() + 21 * MS);
    assertEquals(java.util.List.of("c1", "c1"), told, "past the mark, at each look");
  }

  @Test
  void slotPastItsLimitGetsItsThreadInterrupted() {
    slot.begin("j1", LIMIT);

    watchdog.check(slot, System.nanoTime() + LIMIT + MS);

    assertTrue(Thread.currentThread().isInterrupted());
    assertFalse(slot.isStuck());
    assertEquals(0, stuckCalls.get());
  }

  @Test
  void endReportsTheTimeOutAndClearsTheInterrupt() {
    slot.begin("j1", LIMIT);
    watchdog.check(slot, System.nanoTime() + LIMIT + MS);

    assertTrue(slot.end());

    assertFalse(Thread.currentThread().isInterrupted(), "the interrupt must not leak into the next job");
  }

  @Test
  void nextJobStartsWithoutTheTimeOutOfTheLast() {
    slot.begin("j1", LIMIT);
    watchdog.check(slot, System.nanoTime() + LIMIT + MS);
    slot.end();

    slot.begin("j2", LIMIT);

    assertFalse(slot.end());
  }

  @Test
  void finishedSlotIsNeverInterrupted() {
    slot.begin("j1", LIMIT);
    slot.end();

    watchdog.check(slot, System.nanoTime() + 10 * LIMIT);

    assertFalse(Thread.currentThread().isInterrupted());
  }

  @Test
  void handlerIgnoringItsInterruptPastTheGraceIsStuckOnce() {
    slot.begin("j1", LIMIT);
    long interruptedAt = System.nanoTime() + LIMIT + MS;
    watchdog.check(slot, interruptedAt);

    watchdog.check(slot, interruptedAt + GRACE / 2);
    assertFalse(slot.isStuck(), "still within the grace");
    assertEquals(0, stuckCalls.get());

    watchdog.check(slot, interruptedAt + GRACE);
    watchdog.check(slot, interruptedAt + 2 * GRACE);
    watchdog.check(slot, interruptedAt + 3 * GRACE);

    assertTrue(slot.isStuck());
    assertEquals(1, stuckCalls.get());
  }

  @Test
  void watchdogThreadInterruptsAHandlerThatRunsTooLongAndFlagsOneThatIgnoresIt() throws Exception {
    AtomicBoolean stuck = new AtomicBoolean();
    Watchdog running = new Watchdog(50 * MS, () -> stuck.set(true));
    AtomicBoolean sawInterrupt = new AtomicBoolean();
    AtomicBoolean release = new AtomicBoolean();
    Thread handler = new Thread(() -> {
      Watchdog.Slot s = running.register("c2", Thread.currentThread());
      s.begin("j1", 20 * MS);
      while (!release.get()) {
        if (Thread.currentThread().isInterrupted()) {
          sawInterrupt.set(true); // and ignores it
        }
        Thread.onSpinWait();
      }
      s.end();
    }, "ignoring-handler");
    running.start(t -> { });
    handler.start();
    try {
      await().atMost(Duration.ofSeconds(3)).untilTrue(stuck);
      assertTrue(sawInterrupt.get(), "the handler was interrupted before it was declared stuck");
    } finally {
      release.set(true);
      handler.join(2_000);
      running.close();
    }
  }
}
