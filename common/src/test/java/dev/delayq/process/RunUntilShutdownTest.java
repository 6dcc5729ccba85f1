package dev.delayq.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.delayq.testing.LogLines;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * {@link RunUntilShutdown} on the test thread: passes are scripted, the clock is a counter and
 * the waits are recorded instead of slept, so every test is exact and instant.
 */
class RunUntilShutdownTest {
  private static final long MS = 1_000_000;

  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(RunUntilShutdown.class);
  private long now = 1_000 * MS;
  private final List<Long> waits = new ArrayList<>();
  private final AtomicReference<Throwable> gaveUp = new AtomicReference<>();

  @BeforeEach
  void captureLog() {
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void releaseLog() {
    logger.detachAppender(logged);
  }

  /** A pass that does what {@code script} says, one step per pass, and the loop ends after it. */
  private interface Step {
    long run() throws Exception;
  }

  private RunUntilShutdown loop(List<Step> script, RedisOutage outage, Duration giveUpAfter) {
    int[] at = {0};
    RunUntilShutdown.Builder b = RunUntilShutdown.of("test-role", () -> script.get(at[0]++).run())
        .until(() -> at[0] >= script.size())
        .pausingWith(deadline -> {
          waits.add((deadline - now) / MS);
          now = deadline;
        })
        .onCannotGoOn(gaveUp::set, giveUpAfter)
        .clock(() -> now, () -> 0.5);
    if (outage != null) {
      b.riding(outage);
    }
    return b.build();
  }

  private static Step fails(Throwable t) {
    return () -> {
      if (t instanceof Exception e) {
        throw e;
      }
      throw (Error) t;
    };
  }

  private Step worksAndWaits(long ms) {
    return () -> now + ms * MS;
  }

  private long errors() {
    return LogLines.of(logged).stream().filter(e -> e.getLevel() == Level.ERROR).count();
  }

  @Test
  void passAsksForItsNextRunAndTheLoopWaitsUntilThen() {
    loop(List.of(worksAndWaits(200), worksAndWaits(0), worksAndWaits(50), worksAndWaits(0)), null,
        Duration.ofDays(1)).run();

    assertEquals(List.of(200L, 50L), waits, "a pass due now runs at once");
    assertNull(gaveUp.get());
  }

  @Test
  void anyFailureIsCaughtLoggedOnceAndBackedOffWithJitterThenTheRoleGoesOn() {
    RuntimeException bug = new IllegalStateException("bug");
    loop(List.of(fails(bug), fails(bug), fails(new ArithmeticException("overflow")), fails(bug),
        worksAndWaits(0), worksAndWaits(0)), null, Duration.ofDays(1)).run();

    // 100 ms doubling, each spread to [half, full): with the random number 0.5, three quarters
    assertEquals(List.of(75L, 150L, 300L, 600L), waits);
    assertEquals(1, errors(), "one line when it started failing: " + LogLines.of(logged));
    assertTrue(LogLines.of(logged).stream().anyMatch(e -> e.getFormattedMessage().equals(
        "test-role: works again after 4 failure(s) in 1125 ms")), LogLines.of(logged).toString());
    assertNull(gaveUp.get());
  }

  @Test
  void anErrorThatIsNotTheJvmsIsSurvivedToo() {
    loop(List.of(fails(new StackOverflowError()), fails(new AssertionError("x")), worksAndWaits(0)), null,
        Duration.ofDays(1)).run();

    assertEquals(2, waits.size());
    assertNull(gaveUp.get());
  }

  @Test
  void backoffIsCappedAtFiveSeconds() {
    List<Step> script = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      script.add(fails(new IllegalStateException("still")));
    }
    loop(script, null, Duration.ofDays(1)).run();

    assertEquals(3_750L, waits.get(waits.size() - 1));
  }

  @Test
  void redisOutagesGoToTheOutageAndAreNotCountedAsFailures() {
    loop(List.of(fails(new JedisConnectionException("refused")), fails(new JedisConnectionException("refused")),
        worksAndWaits(0)), new RedisOutage("test-role"), Duration.ofMillis(1)).run();

    assertEquals(2, waits.size());
    assertTrue(waits.get(0) >= 50 && waits.get(0) < 100, "the outage's first backoff, spread: " + waits);
    assertEquals(0, errors());
    assertNull(gaveUp.get(), "an outage is ridden out however long it lasts");
  }

  @Test
  void aRoleThatSaysItCannotGoOnEndsItsLoopAndSaysSo() {
    RunUntilShutdown.CannotGoOn why = new RunUntilShutdown.CannotGoOn("lost track of a job", null);
    loop(List.of(fails(why), worksAndWaits(0)), null, Duration.ofDays(1)).run();

    assertEquals(why, gaveUp.get());
    assertEquals(List.of(), waits, "no pass after it");
  }

  @Test
  void aBrokenJvmOrClasspathMeansTheRoleCannotGoOn() {
    loop(List.of(fails(new OutOfMemoryError("Java heap space")), worksAndWaits(0)), null, Duration.ofDays(1)).run();
    assertInstanceOf(OutOfMemoryError.class, gaveUp.get());

    gaveUp.set(null);
    loop(List.of(fails(new NoClassDefFoundError("dev/delayq/Gone")), worksAndWaits(0)), null, Duration.ofDays(1)).run();
    assertInstanceOf(NoClassDefFoundError.class, gaveUp.get());
  }

  @Test
  void aRoleFailingWithoutABreakPastItsGiveUpTimeCannotGoOn() {
    List<Step> script = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      script.add(fails(new IllegalStateException("every time")));
    }
    loop(script, null, Duration.ofSeconds(10)).run();

    assertInstanceOf(RunUntilShutdown.CannotGoOn.class, gaveUp.get());
    assertTrue(gaveUp.get().getMessage().startsWith("failing for 10 s"), gaveUp.get().getMessage());
  }

  @Test
  void aRealThreadStopsWhenToldAndAnInterruptDoesNotEndIt() throws InterruptedException {
    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicInteger passes = new java.util.concurrent.atomic.AtomicInteger();
    Thread t = RunUntilShutdown.of("test-thread", () -> {
      passes.incrementAndGet();
      return System.nanoTime() + 10 * MS;
    }).until(stop::get).build().start();

    t.interrupt();
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> passes.get() > 3);
    assertTrue(t.isAlive(), "an interrupt that is not for shutdown is survived");
    stop.set(true);
    t.join(5_000);
    assertTrue(!t.isAlive());
  }
}
