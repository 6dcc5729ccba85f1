package dev.delayq.test;

import dev.delayq.DelayQueue;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobHandler;
import dev.delayq.process.ChildEnvironment;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.worker.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One test's queue: a {@link DelayQueue} to enqueue with, and the test's handlers, run in this
 * JVM by the worker engine itself (claims, acknowledgements, retries with backoff, dead letters)
 * only when the test says: {@link #runDue()} runs the jobs that are due, {@link #runAll()} runs
 * every job now, however far off its due time, until nothing is left to run. Nothing runs
 * between those calls, so a test sees each job's place in between ({@link #depths()}).
 *
 * <pre>{@code
 * @ExtendWith(DelayqExtension.class)
 * class OrderCloseTest {
 *   @Test
 *   void anUnpaidOrderIsClosedAfterThirtyMinutes(TestQueue delayq) {
 *     Orders orders = new Orders();
 *     delayq.handle(new OrderCloseHandler(orders));
 *     delayq.queue().delay("order_close", Map.of("order_id", 1001), Duration.ofMinutes(30));
 *     assertEquals(0, delayq.runDue().ran());           // not due yet
 *     assertEquals(1, delayq.runAll().succeeded());     // runs now, no waiting
 *     assertTrue(orders.isClosed(1001));
 *   }
 * }
 * }</pre>
 */
public final class TestQueue implements AutoCloseable {
  private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(60);
  private static final int MOST_ROUNDS = 100;

  private final DelayqConfig config;
  private final RedisConnection redis;
  private final RedisBroker broker;
  private final Inspector inspector;
  private final DelayQueue queue;
  private final List<JobHandler> handlers = new ArrayList<>();
  private final CountingHandler.Counts counts = new CountingHandler.Counts();

  private TestQueue(DelayqConfig config, RedisConnection redis) {
    this.config = config;
    this.redis = redis;
    this.broker = new RedisBroker(redis, new Keys(config.queue().keyPrefix(), config.queue().name()))
        .withLimits(config);
    broker.loadScripts();
    this.inspector = new Inspector(redis.client(), broker.keys());
    this.queue = new DelayQueue(broker, config.queue().maxPayloadBytes(), config.retry().maxAttempts());
  }

  /** A fresh queue (a name no other test uses) on the Redis at {@code redisUrl}. */
  public static TestQueue open(String redisUrl) {
    String name = "test-" + UUID.randomUUID().toString().substring(0, 8);
    // the same keys and checks as conf/delayq.yml, set the way an operator's environment would
    DelayqConfig config = new ConfigLoader().load(null, Map.of(
        "DELAYQ_REDIS_URL", redisUrl,
        "DELAYQ_QUEUE", name,
        "DELAYQ_WORKER_THREADS", "2",
        "DELAYQ_WORKER_POLL_TIMEOUT", "50ms",
        "DELAYQ_WORKER_DRAIN_TIMEOUT", "10s"));
    return new TestQueue(config, RedisConnector.connect(config, redisUrl, "delayq-test", 16));
  }

  /** The producer API on this queue. */
  public DelayQueue queue() {
    return queue;
  }

  /** The configuration its worker runs with (defaults of conf/delayq.yml, 2 threads). */
  public DelayqConfig config() {
    return config;
  }

  /** Adds handlers the next runs use; two handlers of one type fail the next run. */
  public TestQueue handle(JobHandler... more) {
    for (JobHandler h : more) {
      handlers.add(new CountingHandler(h, counts));
    }
    return this;
  }

  /** How many jobs are delayed, ready, in flight, dead, and stored. */
  public Inspector.Depths depths() {
    return inspector.depths();
  }

  /**
   * Runs the jobs that are due now, as a worker would, and returns once none is ready or in
   * flight. A retry or reschedule that falls in the future stays delayed.
   */
  public Runs runDue() {
    Runs before = counts.snapshot();
    run(false);
    return counts.snapshot().minus(before);
  }

  /**
   * Runs everything now, with no waiting on delays: every delayed job is made due, run, and the
   * retries and reschedules it leads to as well, until nothing is delayed, ready or in flight
   * (a job that fails every attempt ends dead, as it would in production). Gives up after 100
   * rounds, for a job that reschedules itself for ever.
   */
  public Runs runAll() {
    Runs before = counts.snapshot();
    run(true);
    return counts.snapshot().minus(before);
  }

  private void run(boolean everything) {
    String prefix = ChildEnvironment.consumerPrefix(config.queue().name(), "test",
        ProcessHandle.current().pid());
    List<String> failures = new ArrayList<>();
    AtomicBoolean quiet = new AtomicBoolean();
    Worker worker = Worker.inApp("test-worker " + config.queue().name(), prefix, config, redis, handlers,
        quiet::get, (failure, reason) -> {
          synchronized (failures) {
            failures.add(reason);
          }
        });
    worker.start();
    try {
      int rounds = 0;
      do {
        if (everything) {
          makeAllDue();
        }
        forwardDue();
        awaitIdle(failures);
        rounds++;
      } while (everything && depths().delayed() > 0 && rounds < MOST_ROUNDS);
      if (everything && depths().delayed() > 0) {
        throw new IllegalStateException("runAll: " + depths().delayed() + " job(s) still delayed after "
            + MOST_ROUNDS + " rounds (a handler that reschedules itself every time?)");
      }
    } finally {
      quiet.set(true);
      try {
        worker.drain();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (failures) {
      if (!failures.isEmpty()) {
        throw new IllegalStateException("the worker stopped: " + String.join("; ", failures));
      }
    }
  }

  private void makeAllDue() {
    while (broker.scheduling().makeAllDue(1000) == 1000) {
      // a full batch: there may be more
    }
  }

  private void forwardDue() {
    while (broker.scheduling().moveDueToReady(1000).moved() == 1000) {
      // a full batch: there may be more
    }
  }

  /** Waits until no job is ready or in flight (acknowledged or moved on), or fails saying what is left. */
  private void awaitIdle(List<String> failures) {
    long deadline = System.nanoTime() + IDLE_TIMEOUT.toNanos();
    while (true) {
      Inspector.Depths d = depths();
      if (d.ready() == 0 && d.inFlight() == 0) {
        return;
      }
      synchronized (failures) {
        if (!failures.isEmpty()) {
          return;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("jobs still running after " + IDLE_TIMEOUT.toSeconds() + " s: " + d);
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while jobs ran", e);
      }
    }
  }

  @Override
  public void close() {
    queue.close();
    redis.close();
  }
}
