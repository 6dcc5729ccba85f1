package dev.delayq.scheduler;

import dev.delayq.redis.NewJob;
import static dev.delayq.testing.QueueProbe.at;
import static org.awaitility.Awaitility.await;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.process.OutageLog;
import dev.delayq.process.ShutdownSignal;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.testing.RedisCluster;
import dev.delayq.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * What the tests of a fault under one shard's master share: a scheduler (loop and wake listeners)
 * of a queue of {@link #SHARDS} shards, each on its own master of {@code cluster}, with jobs due
 * every 200 ms in every shard from 300 ms after the fault on, and when each job of the healthy
 * shards (1 and up) was first seen in ready. The survivors serve their own slots while shard 0's
 * master is out ({@code cluster-require-full-coverage no}).
 */
final class ShardedSchedulerOnCluster implements AutoCloseable {
  static final int SHARDS = 3;

  final Keys keys;
  final RedisBroker broker;
  final UnifiedJedis client;
  /** Each job's due time, epoch ms. */
  final Map<String, Long> dueAt = new ConcurrentHashMap<>();
  /** When each job of the healthy shards was first seen in ready (polled every 10 ms). */
  final Map<String, Long> seenAt = new ConcurrentHashMap<>();
  private final RedisConnection redis;
  private final ShutdownSignal shutdown = new ShutdownSignal();
  private final Waiter waiter = new Waiter();
  private Thread loopThread;

  /**
   * Enqueues {@code perShard} jobs in every shard, the first due 300 ms after {@code faultAt},
   * and starts the scheduler; {@code readyOf} reads a healthy shard's ready ids.
   */
  ShardedSchedulerOnCluster(RedisCluster cluster, String name, long faultAt, int perShard, ReadyReader readyOf)
      throws Exception {
    this(cluster, name, faultAt, perShard, readyOf, 1_000_000_000L, run -> { });
  }

  /**
   * As above, recovering every {@code recoverIntervalNanos}; {@code beforeStart} runs once the
   * jobs are enqueued, before the scheduler starts.
   */
  ShardedSchedulerOnCluster(RedisCluster cluster, String name, long faultAt, int perShard, ReadyReader readyOf,
      long recoverIntervalNanos, java.util.function.Consumer<ShardedSchedulerOnCluster> beforeStart) throws Exception {
    for (RedisServer node : cluster.nodes()) {
      try (Jedis j = new Jedis("127.0.0.1", node.port())) {
        j.configSet("cluster-require-full-coverage", "no");
      }
    }
    String queue = cluster.queueSpreadOverMasters(SHARDS, false);
    DelayqConfig config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_CLUSTER", cluster.seeds(),
        "DELAYQ_QUEUE", queue, "DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS)));
    redis = RedisConnector.connect(config, name, 8);
    keys = Keys.of(config);
    broker = new RedisBroker(redis, keys);
    broker.prepare();
    client = redis.client();

    List<NewJob> jobs = new ArrayList<>();
    int[] inShard = new int[SHARDS];
    for (int n = 0; jobs.size() < SHARDS * perShard; n++) {
      String id = "job-" + n;
      int shard = keys.shardIndexOf(id);
      if (inShard[shard] == perShard) {
        continue;
      }
      long due = faultAt + 300 + 200L * inShard[shard]++;
      jobs.add(at(id, "{}", due));
      dueAt.put(id, due);
    }
    broker.enqueueAll(jobs);
    beforeStart.accept(this);

    SchedulerLoop loop = new SchedulerLoop(new ShardLeases(broker, "me", 30_000), new Forwarder(broker, 1000),
        new Recoverer(broker, 3), new IdRetentionTrimmer(broker), waiter, shutdown, recoverIntervalNanos, 1000,
        new OutageLog("test"));
    for (int s = 0; s < SHARDS; s++) {
      new WakeListener(broker, s, loop.wakeOf(s), waiter, () -> true, shutdown::isRequested,
          new OutageLog("test")).start(e -> { });
    }
    loopThread = new Thread(() -> loop.run(e -> { }), "scheduler-loop");
    loopThread.start();

    Thread watch = new Thread(() -> {
      while (!shutdown.isRequested()) {
        for (int s = 1; s < SHARDS; s++) {
          for (String id : readyOf.ids(client, s, keys.shard(s).ready())) {
            seenAt.putIfAbsent(id, System.currentTimeMillis());
          }
        }
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "ready-watch");
    watch.setDaemon(true);
    watch.start();
  }

  /** How the watch reads a healthy shard's ready ids: through the cluster client, or from its node directly. */
  interface ReadyReader {
    List<String> ids(UnifiedJedis clusterClient, int shard, String readyKey);
  }

  /** Waits until every job is in ready (shard 0's once its master serves again). */
  void awaitEveryJobForwarded(String why) {
    await(why).atMost(Duration.ofSeconds(30)).until(() -> {
      long ready = 0;
      for (Keys shard : keys.allShards()) {
        ready += client.llen(shard.ready());
      }
      return ready == dueAt.size();
    });
  }

  /** The healthy shards' jobs due in [from, to]: how many, the latest's lateness, and those later than {@code boundMs}. */
  record Lateness(long due, long latestMs, List<String> late) {}

  Lateness healthyShardsDueBetween(long from, long to, long boundMs) {
    long due = 0;
    long latest = 0;
    List<String> late = new ArrayList<>();
    for (Map.Entry<String, Long> e : dueAt.entrySet()) {
      long dueMs = e.getValue();
      if (keys.shardIndexOf(e.getKey()) == 0 || dueMs < from || dueMs > to) {
        continue;
      }
      due++;
      long lateMs = seenAt.getOrDefault(e.getKey(), Long.MAX_VALUE) - dueMs;
      latest = Math.max(latest, lateMs);
      if (lateMs > boundMs) {
        late.add(e.getKey() + " (shard " + keys.shardIndexOf(e.getKey()) + ") " + lateMs + " ms late");
      }
    }
    return new Lateness(due, latest, late);
  }

  /** The records of every shard. */
  long records() {
    long records = 0;
    for (Keys shard : keys.allShards()) {
      records += client.hlen(shard.jobs());
    }
    return records;
  }

  @Override
  public void close() throws InterruptedException {
    shutdown.request("test over");
    waiter.wake();
    if (loopThread != null) {
      loopThread.join(10_000);
    }
    redis.close();
  }
}
