package dev.delayq.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.JobOptions;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redis.Inspector;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DelayqExtension.class)
class TestQueueTest {
  /** Closes orders, as an app's handler would; remembers which and at what attempt. */
  static final class OrderClose implements JobHandler {
    final Map<Long, Integer> closed = new ConcurrentHashMap<>();

    @Override
    public String type() {
      return "order_close";
    }

    @Override
    public JobResult handle(JobContext job) {
      closed.put(job.payload().get("order_id").asLong(), job.attempt());
      return JobResult.done();
    }
  }

  /** Fails every attempt. */
  static final class AlwaysFails implements JobHandler {
    final List<Integer> attempts = new CopyOnWriteArrayList<>();

    @Override
    public String type() {
      return "always_fails";
    }

    @Override
    public JobResult handle(JobContext job) {
      attempts.add(job.attempt());
      throw new IllegalStateException("payment service down");
    }
  }

  /** Counts its calls; its type is the one the worker's start-up warm-up gives its own handler. */
  static final class WarmUpTyped implements JobHandler {
    final AtomicInteger calls = new AtomicInteger();

    @Override
    public String type() {
      return "delayq:warm-up";
    }

    @Override
    public JobResult handle(JobContext job) {
      calls.incrementAndGet();
      return JobResult.done();
    }
  }

  @Test
  void theWorkersStartUpWarmUpRunsNoJobAndNoHandlerOfTheApp(TestQueue delayq) {
    WarmUpTyped app = new WarmUpTyped();
    delayq.handle(app);

    assertEquals(new Runs(0, 0, 0), delayq.runAll(), "the worker started, warmed up, drained");

    assertEquals(0, app.calls.get(), "the warm-up runs a handler of its own, even of the same type");
    assertEquals(new Inspector.Depths(0, 0, 0, 0, 0), delayq.depths(), "and leaves no job");
  }

  @Test
  void aDueJobRunsWithTheTestsHandlerAndIsAcknowledged(TestQueue delayq) {
    OrderClose orders = new OrderClose();
    delayq.handle(orders);
    delayq.queue().delay("order_close", Map.of("order_id", 1001), Duration.ZERO);

    assertEquals(new Runs(1, 1, 0), delayq.runDue());
    assertEquals(Map.of(1001L, 1), orders.closed);
    assertEquals(0, delayq.depths().records(), "its record is gone once it is done");
  }

  @Test
  void aJobThatIsNotDueYetWaitsForRunDueButRunAllRunsItNow(TestQueue delayq) {
    OrderClose orders = new OrderClose();
    delayq.handle(orders);
    delayq.queue().delay("order_close", Map.of("order_id", 7), Duration.ofHours(2));
    delayq.queue().schedule("order_close", Map.of("order_id", 8), Instant.now().plus(Duration.ofDays(3)));

    assertEquals(0, delayq.runDue().ran());
    assertEquals(2, delayq.depths().delayed());
    long started = System.nanoTime();
    assertEquals(new Runs(2, 2, 0), delayq.runAll());
    assertTrue(System.nanoTime() - started < Duration.ofSeconds(30).toNanos(), "no waiting on the delay");
    assertEquals(Map.of(7L, 1, 8L, 1), orders.closed);
    assertEquals(0, delayq.depths().delayed());
  }

  @Test
  void runAllRetriesAFailingJobWithoutWaitingOnBackoffUntilItIsDead(TestQueue delayq) {
    AlwaysFails handler = new AlwaysFails();
    delayq.handle(handler);
    delayq.queue().delay("always_fails", Map.of(), Duration.ZERO, JobOptions.defaults().maxAttempts(3));

    assertEquals(new Runs(1, 0, 1), delayq.runDue(), "the retry waits for its backoff");
    assertEquals(1, delayq.depths().delayed());
    assertEquals(new Runs(2, 0, 2), delayq.runAll());
    assertEquals(List.of(1, 2, 3), handler.attempts);
    assertEquals(1, delayq.depths().dead());
  }

  @Test
  void headersReachTheHandlerOnEveryAttemptRetriesIncluded(TestQueue delayq) {
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    delayq.handle(new JobHandler() {
      @Override
      public String type() {
        return "flaky";
      }

      @Override
      public JobResult handle(JobContext job) {
        seen.add(job.headers());
        if (job.attempt() < 3) {
          throw new IllegalStateException("not yet");
        }
        return JobResult.done();
      }
    });
    delayq.queue().delay("flaky", Map.of(), Duration.ZERO,
        JobOptions.defaults().header("tenant", "acme").header("order", "1001"));

    assertEquals(new Runs(3, 1, 2), delayq.runAll());
    assertEquals(List.of(Map.of("tenant", "acme", "order", "1001"), Map.of("tenant", "acme", "order", "1001"),
        Map.of("tenant", "acme", "order", "1001")), seen);
  }

  @Test
  void aJobWithoutAHandlerWaitsForOneAsInProduction(TestQueue delayq) {
    delayq.handle(new OrderClose());
    delayq.queue().delay("nobody_handles_this", Map.of(), Duration.ZERO);

    assertEquals(0, delayq.runDue().ran());
    // not dead and not lost: its record is kept and it is in none of delayed, ready or in flight,
    // but waiting for a worker with its handler (queue.handlerWait), as a worker of the app would leave it
    assertEquals(new Inspector.Depths(0, 0, 0, 0, 1), delayq.depths());
  }

  @Test
  void twoHandlersOfOneTypeAreRefusedByName(TestQueue delayq) {
    delayq.handle(new OrderClose(), new OrderClose());
    IllegalStateException e = assertThrows(IllegalStateException.class, delayq::runDue);
    assertTrue(e.getMessage().contains("job type 'order_close' has two handlers"), e.getMessage());
  }
}
