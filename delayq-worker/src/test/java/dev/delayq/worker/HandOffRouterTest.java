package dev.delayq.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobOptions;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * No job waits behind a slow handler while a consumer of its worker idles, on a queue of several
 * shards and on a worker of several queues too: a claim takes several jobs at once (its fair
 * share, or its queue's pace), and those claimed behind a handler that runs long are handed to the
 * idle consumers ({@link HandOffRouter}). A real worker on a real Redis; the forward is made by
 * the test, all jobs at once, so that one claim takes the slow job with quick ones behind it (a
 * dozen quick ones: more than one each is the fair share of the worker's consumers).
 */
class HandOffRouterTest {
  private static final long SLOW_MS = 4_000;
  private static final int QUICK = 12;

  private final Map<String, Long> startedAt = new ConcurrentHashMap<>();
  private final AtomicLong slowEndedAt = new AtomicLong();

  @Test
  void onAQueueOfThreeShardsJobsClaimedBehindASlowHandlerRunOnAnIdleConsumerMeanwhile() throws Exception {
    String queue = RedisFixture.freshQueue();
    DelayqConfig config = config(queue, Map.of("DELAYQ_QUEUE_SHARDS", "3", "DELAYQ_WORKER_THREADS", "2"));
    Keys keys = Keys.of(config);
    try (RedisConnection redis = RedisConnector.connect(config, "hand-off-test", 16);
        Worker worker = Worker.inApp(config, redis, handlers())) {
      worker.start();
      RedisBroker broker = new RedisBroker(redis, keys);
      List<String> quick = enqueueSlowThenQuick(broker, shard -> shard == 1 ? 1 : -1, keys);
      forwardAll(broker, 1, QUICK + 1);
      assertQuickOnesStartedBeforeTheSlowOneEnded(quick);
    }
  }

  /**
   * Two consumers on a queue of one shard: the idle one takes the gate's turn and blocks in Redis,
   * so none parks in the worker to make the hand-off's call; the worker's own sender makes it, and
   * the ids it gives back to ready wake the blocked one.
   */
  @Test
  void whenTheOnlyIdleConsumerBlocksInRedisJobsClaimedBehindASlowHandlerStillRunMeanwhile() throws Exception {
    String queue = RedisFixture.freshQueue();
    DelayqConfig config = config(queue, Map.of("DELAYQ_WORKER_THREADS", "2"));
    Keys keys = Keys.of(config);
    try (RedisConnection redis = RedisConnector.connect(config, "hand-off-test", 16);
        Worker worker = Worker.inApp(config, redis, handlers())) {
      worker.start();
      RedisBroker broker = new RedisBroker(redis, keys);
      List<String> quick = enqueueSlowThenQuick(broker, shard -> 0, keys);
      forwardAll(broker, 0, QUICK + 1);
      assertQuickOnesStartedBeforeTheSlowOneEnded(quick);
    }
  }

  @Test
  void onAWorkerOfTwoQueuesJobsClaimedBehindASlowHandlerRunOnAnIdleConsumerMeanwhile() throws Exception {
    String busy = RedisFixture.freshQueue();
    String other = RedisFixture.freshQueue();
    // two consumers whose home is each queue: when the busy queue's are both busy or blocked in
    // Redis, an idle consumer parked in the other queue's gate runs the hand-off
    DelayqConfig config = config(busy, Map.of("DELAYQ_WORKER_QUEUES", busy + ":1," + other + ":1",
        "DELAYQ_WORKER_THREADS", "4"));
    Keys keys = new Keys("delayq", busy, 1, 0);
    try (RedisConnection redis = RedisConnector.connect(config, "hand-off-test", 16);
        Worker worker = Worker.inApp(config, redis, handlers())) {
      worker.start();
      RedisBroker broker = new RedisBroker(redis, keys);
      List<String> quick = enqueueSlowThenQuick(broker, shard -> 0, keys);
      forwardAll(broker, 0, QUICK + 1);
      assertQuickOnesStartedBeforeTheSlowOneEnded(quick);
    }
  }

  private void assertQuickOnesStartedBeforeTheSlowOneEnded(List<String> quick) {
    await().atMost(Duration.ofSeconds(20)).until(() -> slowEndedAt.get() != 0 && startedAt.keySet().containsAll(quick));
    for (String id : quick) {
      long lateMs = (startedAt.get(id) - slowEndedAt.get()) / 1_000_000;
      assertTrue(lateMs < 0, "job " + id + " started " + lateMs + " ms after the slow handler it was claimed "
          + "behind had ended (it ran " + SLOW_MS + " ms), though a consumer was idle");
    }
  }

  /**
   * The slow job, then the quick ones, each due 200 ms out in a shard that {@code wanted} maps to 0 or more,
   * ids in due order; the quick ones' ids.
   */
  private static List<String> enqueueSlowThenQuick(RedisBroker broker, java.util.function.IntUnaryOperator wanted,
      Keys keys) {
    DelayQueue producer = new DelayQueue(broker, 1 << 20, 5);
    List<String> ids = new ArrayList<>();
    for (int i = 0; ids.size() < QUICK + 1; i++) {
      String id = "job-" + i;
      if (wanted.applyAsInt(keys.shardIndexOf(id)) >= 0) {
        ids.add(id);
      }
    }
    producer.delay("slow", "{}", Duration.ofMillis(200), JobOptions.withId(ids.get(0)));
    for (String id : ids.subList(1, ids.size())) {
      producer.delay("quick", "{}", Duration.ofMillis(200), JobOptions.withId(id));
    }
    return ids.subList(1, ids.size());
  }

  /** Forwards the {@code n} jobs of {@code shard} to ready in one move, once all are due. */
  private static void forwardAll(RedisBroker broker, int shard, int n) {
    await().pollDelay(Duration.ofMillis(400)).atMost(Duration.ofSeconds(10))
        .until(() -> broker.scheduling().moveDueToReady(shard, 100).moved() == n);
  }

  private List<JobHandler> handlers() {
    return List.of(handler("slow", () -> {
      try {
        Thread.sleep(SLOW_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      slowEndedAt.set(System.nanoTime());
    }), handler("quick", () -> { }));
  }

  private JobHandler handler(String type, Runnable body) {
    return new JobHandler() {
      @Override
      public String type() {
        return type;
      }

      @Override
      public JobResult handle(JobContext ctx) {
        startedAt.put(ctx.id(), System.nanoTime());
        body.run();
        return JobResult.done();
      }
    };
  }

  private static DelayqConfig config(String queue, Map<String, String> more) {
    Map<String, String> env = new HashMap<>(Map.of(
        "DELAYQ_REDIS_URL", RedisFixture.get().url(),
        "DELAYQ_QUEUE", queue,
        "DELAYQ_WORKER_POLL_TIMEOUT", "1s",
        "DELAYQ_WORKER_DRAIN_TIMEOUT", "10s"));
    env.putAll(more);
    return new ConfigLoader().load(null, env);
  }
}
