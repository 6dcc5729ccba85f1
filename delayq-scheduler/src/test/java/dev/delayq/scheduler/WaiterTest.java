package dev.delayq.scheduler;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@link Waiter}: a timed wait on the monotonic clock that another thread can cut short. */
class WaiterTest {
  private static final long MS = 1_000_000;

  private final Waiter waiter = new Waiter();

  @Test
  void awaitReturnsAtTheDeadlineAndNotBefore() {
    long deadline = System.nanoTime() + 150 * MS;

    waiter.awaitUntil(deadline);
    long returned = System.nanoTime();

    assertTrue(returned - deadline >= 0, "returned " + (deadline - returned) / MS + " ms early");
    assertTrue(returned - deadline < 250 * MS, "returned " + (returned - deadline) / MS + " ms late");
  }

  @Test
  void awaitWithADeadlineInThePastReturnsAtOnce() {
    long start = System.nanoTime();

    waiter.awaitUntil(start - 1_000 * MS);

    assertTrue(System.nanoTime() - start < 50 * MS);
  }

  @Test
  void wakeFromAnotherThreadEndsTheWaitEarly() throws Exception {
    long deadline = System.nanoTime() + 10_000 * MS;
    AtomicReference<Thread> sleeper = new AtomicReference<>();
    CompletableFuture<Long> returned = CompletableFuture.supplyAsync(() -> {
      sleeper.set(Thread.currentThread());
      waiter.awaitUntil(deadline);
      return System.nanoTime();
    }, r -> new Thread(r, "sleeper").start());
    await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(2))
        .until(() -> sleeper.get() != null && sleeper.get().getState() == Thread.State.TIMED_WAITING);

    long woken = System.nanoTime();
    waiter.wake();

    long at = returned.get(2, TimeUnit.SECONDS);
    assertTrue(at - woken < 500 * MS, "returned " + (at - woken) / MS + " ms after wake()");
  }

  @Test
  void wakeBeforeTheWaitIsKeptAndEndsTheNextWaitAtOnce() {
    waiter.wake();
    long start = System.nanoTime();

    waiter.awaitUntil(start + 10_000 * MS);

    assertTrue(System.nanoTime() - start < 500 * MS, "the earlier wake-up was lost");
  }

  @Test
  void oneWakeEndsOnlyOneWait() {
    waiter.wake();
    waiter.awaitUntil(System.nanoTime() + 10_000 * MS);

    long deadline = System.nanoTime() + 100 * MS;
    waiter.awaitUntil(deadline);

    assertTrue(System.nanoTime() - deadline >= 0, "a spent wake-up ended a second wait");
  }
}
