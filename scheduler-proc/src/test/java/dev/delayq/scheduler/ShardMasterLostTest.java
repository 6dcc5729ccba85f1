package dev.delayq.scheduler;

import static dev.delayq.testing.QueueProbe.at;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.process.OutageLog;
import dev.delayq.process.ShutdownSignal;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.testing.RedisCluster;
import dev.delayq.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A scheduler of a queue of three shards on a Redis Cluster of three masters (a replica each),
 * each shard on its own master, loses the master of shard 0 (SIGKILL: its calls fail until its
 * replica takes over, cluster-node-timeout later). The jobs of shards 1 and 2 that fall due
 * meanwhile must be forwarded on time, and shard 0's once its replica serves; none is lost.
 */
class ShardMasterLostTest {
  private static final int SHARDS = 3;
  private static final int NODE_TIMEOUT_MS = 3000;
  private static final long LATE_BOUND_MS = 1000;

  private RedisCluster cluster;
  private RedisConnection redis;
  private final ShutdownSignal shutdown = new ShutdownSignal();
  private final Waiter waiter = new Waiter();
  private Thread loopThread;

  @AfterEach
  void close() throws InterruptedException {
    shutdown.request("test over");
    waiter.wake();
    if (loopThread != null) {
      loopThread.join(10_000);
    }
    if (redis != null) {
      redis.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theOtherShardsAreForwardedOnTimeWhileOneShardsMasterIsLost() throws Exception {
    cluster = RedisCluster.startWithReplicas(NODE_TIMEOUT_MS);
    for (RedisServer node : cluster.nodes()) {
      try (Jedis j = new Jedis("127.0.0.1", node.port())) {
        // the survivors serve their slots while shard 0's are uncovered (before its replica takes over)
        j.configSet("cluster-require-full-coverage", "no");
      }
    }
    String queue = cluster.queueSpreadOverMasters(SHARDS, false);
    DelayqConfig config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_CLUSTER", cluster.seeds(),
        "DELAYQ_QUEUE", queue, "DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS)));
    redis = RedisConnector.connect(config, "shard-lost-test", 8);
    Keys keys = Keys.of(config);
    RedisBroker broker = new RedisBroker(redis, keys);
    broker.prepare();
    UnifiedJedis client = redis.client();

    // jobs due every 200 ms from 300 ms to 2.9 s after the kill, in every shard
    long killAt = System.currentTimeMillis() + 1500;
    List<RedisBroker.NewJob> jobs = new ArrayList<>();
    Map<String, Long> dueAt = new ConcurrentHashMap<>();
    int[] perShard = new int[SHARDS];
    for (int n = 0; jobs.size() < SHARDS * 14; n++) {
      String id = "job-" + n;
      int shard = keys.shardIndexOf(id);
      if (perShard[shard] == 14) {
        continue;
      }
      long due = killAt + 300 + 200L * perShard[shard]++;
      jobs.add(at(id, "{}", due));
      dueAt.put(id, due);
    }
    broker.enqueueAll(jobs);

    SchedulerLoop loop = new SchedulerLoop(new ShardLeases(broker, "me", 30_000), new Forwarder(broker, 1000),
        new Recoverer(broker, 3), new IdRetentionTrimmer(broker), waiter, shutdown, 1_000_000_000L, 1000,
        new OutageLog("test"));
    for (int s = 0; s < SHARDS; s++) {
      int shard = s;
      new WakeListener(broker, shard, loop.wakeOf(shard), waiter, () -> true, shutdown::isRequested,
          new OutageLog("test")).start(e -> { });
    }
    loopThread = new Thread(() -> loop.run(e -> { }), "scheduler-loop");
    loopThread.start();

    // when each job of the healthy shards was first seen in ready (polled every 10 ms)
    Map<String, Long> seenAt = new ConcurrentHashMap<>();
    Thread watch = new Thread(() -> {
      while (!shutdown.isRequested()) {
        for (int s = 1; s < SHARDS; s++) {
          for (String id : client.lrange(keys.shard(s).ready(), 0, -1)) {
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

    Thread.sleep(Math.max(0, killAt - System.currentTimeMillis()));
    int slot0 = JedisClusterCRC16.getSlot(keys.shard(0).ready());
    long killedAt = System.currentTimeMillis();
    cluster.killMasterOf(slot0, Duration.ofSeconds(30));
    long failedOverAt = System.currentTimeMillis();

    await("every job forwarded, shard 0's once its replica serves").atMost(Duration.ofSeconds(30)).until(() -> {
      long ready = 0;
      for (Keys shard : keys.allShards()) {
        ready += client.llen(shard.ready());
      }
      return ready == jobs.size();
    });
    long dueWhileDown = 0;
    long latest = 0;
    List<String> late = new ArrayList<>();
    for (Map.Entry<String, Long> e : dueAt.entrySet()) {
      long due = e.getValue();
      if (keys.shardIndexOf(e.getKey()) == 0 || due < killedAt || due > failedOverAt) {
        continue;
      }
      dueWhileDown++;
      long lateMs = seenAt.getOrDefault(e.getKey(), Long.MAX_VALUE) - due;
      latest = Math.max(latest, lateMs);
      if (lateMs > LATE_BOUND_MS) {
        late.add(e.getKey() + " (shard " + keys.shardIndexOf(e.getKey()) + ") " + lateMs + " ms late");
      }
    }
    System.out.printf("shard 0 without a master for %d ms; %d jobs of shards 1 and 2 due meanwhile, the latest"
        + " %d ms after due (10 ms polls)%n", failedOverAt - killedAt, dueWhileDown, latest);
    assertTrue(dueWhileDown >= 10, "jobs of the healthy shards fell due while shard 0 had no master: "
        + dueWhileDown + " (failover took " + (failedOverAt - killedAt) + " ms)");
    assertEquals(List.of(), late, "jobs of the healthy shards due while shard 0's master was lost ("
        + (failedOverAt - killedAt) + " ms) reached ready within " + LATE_BOUND_MS + " ms of due");
    long records = 0;
    for (Keys shard : keys.allShards()) {
      records += client.hlen(shard.jobs());
    }
    assertEquals(jobs.size(), records, "every job's record is kept");
  }
}
