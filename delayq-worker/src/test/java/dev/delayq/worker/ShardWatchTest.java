package dev.delayq.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobOptions;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.process.OutageLog;
import dev.delayq.process.ShardHealth;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.testing.RedisFixture;
import dev.delayq.redisserver.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The {@link ShardWatch} of a worker on a queue of three shards, on a real Redis: its watchers'
 * passes ({@link ShardWatch#pass}), and a worker of one consumer, fewer than the shards, whose
 * jobs in any shard start without waiting for a poll timeout.
 */
class ShardWatchTest {
  private static final int SHARDS = 3;

  private final Keys keys = new Keys("delayq", RedisFixture.freshQueue(), SHARDS, 0);
  private final RedisBroker broker = RedisFixture.get().broker(keys);

  @Test
  void aWatcherSendsOneIdleConsumerToTheShardWithJobsAndTakesNoneOfThem() throws Exception {
    ShardWatch watch = new ShardWatch(broker, 2.0);
    try (Watching running = watching(watch)) {
      RedisFixture.get().redis().lpush(keys.shard(2).ready(), "a", "b");
      assertEquals(sent(2), watch.await(5_000_000_000L), "an idle consumer is sent to shard 2");
      assertEquals(ShardWatch.Turn.NONE, watch.await(300_000_000L), "a second one is not sent there before a claim looked");
      assertEquals(List.of("b", "a"), RedisFixture.get().redis().lrange(keys.shard(2).ready(), 0, -1),
          "the watcher left the ready list as it was, in its order");
      watch.looked(2, 1, true);
      assertEquals(sent(2), watch.await(5_000_000_000L), "a claim took one and left one: the next consumer is sent");
    }
  }

  /**
   * Idle consumers block in Redis themselves, one on each shard, as on a queue of one shard, so a
   * job reaches a consumer with no watcher's look and hand-over in between; one stays idle in the
   * watch for as long as some shard has nobody blocked on it (its watcher sends that one). A
   * consumer back from its wait with jobs left there sends that many idle consumers at once.
   */
  @Test
  void idleConsumersBlockOneOnEachShardAndOneStaysForTheWatchers() throws Exception {
    ShardWatch watch = new ShardWatch(broker, 0.2);
    CompletableFuture<ShardWatch.Turn> a = CompletableFuture.supplyAsync(() -> awaitQuietly(watch));
    await().atMost(Duration.ofSeconds(5)).until(() -> watch.idle() == 1);
    assertEquals(blocks(0), awaitQuietly(watch), "a second idle consumer blocks on a shard nobody blocks on");
    assertEquals(blocks(1), awaitQuietly(watch));
    assertEquals(blocks(2), awaitQuietly(watch), "the last open shard: it leaves no shard unwatched");
    Thread.sleep(300);
    assertTrue(!a.isDone() && watch.idle() == 1, "the first stays idle while shards had nobody blocked on them");

    long looks = blmoveCalls();
    RedisFixture.get().redis().lpush(keys.shard(1).ready(), "x");
    for (int shard = 0; shard < SHARDS; shard++) {
      watch.pass(shard);
    }
    assertEquals(looks, blmoveCalls(), "no watcher looks at a shard a consumer blocks on");

    watch.unblocked(1, 2); // the one blocked on shard 1 took a job and its claim left two
    assertEquals(sent(1), a.get(5, TimeUnit.SECONDS), "an idle consumer is sent for what it left");
    assertEquals(sent(1), awaitQuietly(watch), "and one more");
    assertEquals(ShardWatch.Turn.NONE, awaitQuietly(watch, 300_000_000L),
        "no more than the two left are sent for, and shard 1 has two on their way: nobody blocks there");
  }

  /**
   * A shard whose calls fail (a cluster master lost, or with replicaAcks a master without
   * replica) gets no consumer sent: they would only meet the failure; its jobs are sent for once
   * it answers again, and the other shards' jobs are sent for meanwhile.
   */
  @Test
  void noIdleConsumerIsSentToAShardHeldBackUntilItAnswersAgain() throws Exception {
    ShardHealth health = new ShardHealth("test", SHARDS, () -> 0);
    ShardWatch watch = new ShardWatch(broker, 2.0, health);
    try (Watching running = watching(watch)) {
      health.failed(0, new redis.clients.jedis.exceptions.JedisConnectionException("shard 0's node lost"));
      RedisFixture.get().redis().lpush(keys.shard(0).ready(), "held");
      assertEquals(ShardWatch.Turn.NONE, watch.await(500_000_000L), "shard 0 has a job, but it is held back");
      RedisFixture.get().redis().lpush(keys.shard(1).ready(), "a");
      assertEquals(sent(1), watch.await(5_000_000_000L), "the other shards are served meanwhile");
      health.worked(0);
      assertEquals(sent(0), watch.await(5_000_000_000L), "once shard 0 answers, a consumer is sent there");
    }
  }

  /**
   * A watcher whose own look fails (its shard's node lost) holds that shard back and looks again
   * on the shard's retry time (50 ms at first, at most 1 s), not after the worker's outage
   * backoff of up to 5 s: its jobs are seen as soon as the node answers.
   */
  @Test
  void aWatcherWhoseLookFailsHoldsItsShardBackAndLooksAgainOnTheShardsRetryTime() throws Exception {
    try (RedisServer lost = RedisServer.start()) {
      DelayqConfig config = new ConfigLoader().load(null, Map.of(
          "DELAYQ_REDIS_URL", lost.url(), "DELAYQ_QUEUE", keys.queue(), "DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS)));
      try (RedisConnection redis = RedisConnector.connect(config, "shard-watch-test", 4)) {
        ShardHealth health = new ShardHealth("test", SHARDS, () -> 0);
        ShardWatch watch = new ShardWatch(new RedisBroker(redis, Keys.of(config)), 1.0, health);
        CompletableFuture<ShardWatch.Turn> idle = CompletableFuture.supplyAsync(() -> awaitQuietly(watch, 3_000_000_000L));
        await().atMost(Duration.ofSeconds(5)).until(() -> watch.idle() == 1);
        lost.kill();

        long before = System.nanoTime();
        long next = watch.pass(2);

        assertTrue(health.failing(2), "the shard whose look failed is held back");
        assertTrue(next - before < 1_100_000_000L, "it looks again within its shard's retry time, not "
            + (next - before) / 1_000_000 + " ms later");
        assertEquals(ShardWatch.Turn.NONE, idle.get(10, TimeUnit.SECONDS), "nobody is sent to it");
      }
    }
  }

  /**
   * The jobs a busy consumer holds behind a slow handler are handed off by a consumer idle in the
   * watch (none is asked while none idles: every consumer is busy), and what the hand-off gave
   * back to a shard's ready list is sent for as a claim's left jobs.
   */
  @Test
  void anIdleConsumerRunsTheHandOffAndIsThenSentToTheShardItGaveJobsBackTo() throws Exception {
    ShardWatch watch = new ShardWatch(broker, 2.0);
    assertTrue(!watch.handOff(() -> { }), "no consumer idles: nobody is asked");
    CompletableFuture<ShardWatch.Turn> idle = CompletableFuture.supplyAsync(() -> awaitQuietly(watch));
    await().atMost(Duration.ofSeconds(5)).until(() -> watch.idle() == 1);
    Runnable handOff = () -> watch.handedOff(2, 2);
    assertTrue(watch.handOff(handOff), "an idle consumer is asked");
    assertTrue(!watch.handOff(() -> { }), "and no second hand-off while it is the only one idle");
    ShardWatch.Turn turn = idle.get(5, TimeUnit.SECONDS);
    assertEquals(handOff, turn.handOff(), "the idle consumer runs it");
    turn.handOff().run();
    assertEquals(sent(2), awaitQuietly(watch), "then it is sent where the jobs went back");
    assertEquals(sent(2), awaitQuietly(watch), "and one more for the second job");
  }

  @Test
  void watchersLookOnlyWhileAConsumerIdlesAndNotAgainWhereOneIsOnItsWay() throws Exception {
    ShardWatch watch = new ShardWatch(broker, 1.0);
    RedisFixture.get().redis().lpush(keys.shard(1).ready(), "a");
    long before = blmoveCalls();
    watch.pass(1);
    assertEquals(0, blmoveCalls() - before, "no consumer idles: no look");
    CompletableFuture<ShardWatch.Turn> first = CompletableFuture.supplyAsync(() -> awaitQuietly(watch));
    await().atMost(Duration.ofSeconds(5)).until(() -> watch.idle() == 1);
    watch.pass(1);
    assertEquals(1, blmoveCalls() - before);
    assertEquals(sent(1), first.get(10, TimeUnit.SECONDS));
    // a second idle consumer: it does not block (two shards would then have nobody blocked on
    // them and nobody idle for their watchers), and it is not sent where the first is on its way
    CompletableFuture<ShardWatch.Turn> second = CompletableFuture.supplyAsync(() -> awaitQuietly(watch));
    await().atMost(Duration.ofSeconds(5)).until(() -> watch.idle() == 1);
    watch.pass(1);
    assertEquals(1, blmoveCalls() - before, "a consumer is on its way to shard 1: no look, one consumer still idle");
    assertEquals(1, watch.idle());
    watch.looked(1, 0, true); // (it claimed nothing: "a" stays)
    watch.pass(1);
    assertEquals(2, blmoveCalls() - before, "once its claim looked there, the watcher looks again");
    assertEquals(sent(1), second.get(10, TimeUnit.SECONDS));
  }

  /** A watch's watchers, running until closed. */
  private interface Watching extends AutoCloseable {
    @Override
    void close();
  }

  private static Watching watching(ShardWatch watch) {
    AtomicBoolean stop = new AtomicBoolean();
    watch.start("test", stop::get, new OutageLog("test"), t -> { });
    return () -> stop.set(true);
  }

  private static ShardWatch.Turn sent(int shard) {
    return new ShardWatch.Turn(shard, false);
  }

  private static ShardWatch.Turn blocks(int shard) {
    return new ShardWatch.Turn(shard, true);
  }

  private static ShardWatch.Turn awaitQuietly(ShardWatch watch) {
    return awaitQuietly(watch, 10_000_000_000L);
  }

  private static ShardWatch.Turn awaitQuietly(ShardWatch watch, long timeoutNanos) {
    try {
      return watch.await(timeoutNanos);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aJobForwardedToAShardNoIdleConsumerBlocksOnStartsWithoutWaitingForThePollTimeout() throws Exception {
    DelayqConfig config = new ConfigLoader().load(null, Map.of(
        "DELAYQ_REDIS_URL", RedisFixture.get().url(),
        "DELAYQ_QUEUE", keys.queue(),
        "DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS),
        "DELAYQ_WORKER_THREADS", "1",
        "DELAYQ_WORKER_POLL_TIMEOUT", "20s",
        "DELAYQ_REDIS_SOCKET_TIMEOUT", "30s", // a poll timeout longer than it would time the poll out
        "DELAYQ_WORKER_DRAIN_TIMEOUT", "2s"));
    Map<String, Long> startedAt = new ConcurrentHashMap<>();
    JobHandler mark = new JobHandler() {
      @Override
      public String type() {
        return "mark";
      }

      @Override
      public JobResult handle(JobContext ctx) {
        startedAt.put(ctx.id(), System.nanoTime());
        return JobResult.done();
      }
    };
    try (RedisConnection redis = RedisConnector.connect(config, "shard-watch-test", 16);
        Worker worker = Worker.inApp(config, redis, List.of(mark))) {
      worker.start();
      DelayQueue producer = new DelayQueue(new RedisBroker(redis, Keys.of(config)), 1 << 20, 5);
      // its one consumer blocks on shard 0 at most: these go to shards 1 and 2
      for (int shard = 1; shard < SHARDS; shard++) {
        String id = idInShard(shard);
        producer.delay("mark", "{}", Duration.ofMillis(300), JobOptions.withId(id));
        await().atMost(Duration.ofSeconds(10)).until(() -> broker.scheduling().moveDueToReady(keys.shardIndexOf(id), 10).moved() == 1);
        long forwardedAt = System.nanoTime();
        await().atMost(Duration.ofSeconds(15)).until(() -> startedAt.containsKey(id));
        long ms = (startedAt.get(id) - forwardedAt) / 1_000_000;
        assertTrue(ms < 5_000, "the job forwarded to shard " + shard + " started " + ms
            + " ms after (worker.pollTimeout is 20 s)");
      }
    }
  }

  private String idInShard(int shard) {
    for (int i = 0; ; i++) {
      String id = "job-" + i;
      if (keys.shardIndexOf(id) == shard) {
        return id;
      }
    }
  }

  private static long blmoveCalls() {
    for (String line : RedisFixture.get().redis().info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_blmove:")) {
        String calls = line.substring(line.indexOf("calls=") + 6);
        return Long.parseLong(calls.substring(0, calls.indexOf(',')));
      }
    }
    return 0;
  }
}
