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
import java.io.IOException;
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
 * A scheduler of a queue of three shards on a Redis Cluster of three masters (no replicas, node
 * timeout 5 s: nothing fails over) whose master of shard 0 hangs for 4 s (SIGSTOP: it neither
 * answers nor refuses, as behind a partition that drops packets). The jobs of shards 1 and 2
 * that fall due meanwhile must be forwarded on time, and shard 0's once its master goes on
 * (SIGCONT); none is lost.
 */
class ShardMasterHungTest {
  private static final int SHARDS = 3;
  private static final long HANG_MS = 4000;
  private static final long LATE_BOUND_MS = 1000;

  private RedisCluster cluster;
  private RedisServer hung;
  private RedisConnection redis;
  private final ShutdownSignal shutdown = new ShutdownSignal();
  private final Waiter waiter = new Waiter();
  private Thread loopThread;

  @AfterEach
  void close() throws Exception {
    if (hung != null) {
      signal("CONT", hung);
    }
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

  static void signal(String signal, RedisServer node) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-" + signal, Long.toString(node.pid())).inheritIO().start().waitFor();
  }

  @Test
  void theOtherShardsAreForwardedOnTimeWhileOneShardsMasterHangs() throws Exception {
    cluster = RedisCluster.start();
    for (RedisServer node : cluster.nodes()) {
      try (Jedis j = new Jedis("127.0.0.1", node.port())) {
        // should the others count the hung node as failed, they still serve their own slots
        j.configSet("cluster-require-full-coverage", "no");
      }
    }
    String queue = cluster.queueSpreadOverMasters(SHARDS, false);
    DelayqConfig config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_CLUSTER", cluster.seeds(),
        "DELAYQ_QUEUE", queue, "DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS)));
    redis = RedisConnector.connect(config, "shard-hung-test", 8);
    Keys keys = Keys.of(config);
    RedisBroker broker = new RedisBroker(redis, keys);
    broker.prepare();
    UnifiedJedis client = redis.client();

    // jobs due every 200 ms from 300 ms to 3.7 s after the stop, in every shard
    long stopAt = System.currentTimeMillis() + 1500;
    List<RedisBroker.NewJob> jobs = new ArrayList<>();
    Map<String, Long> dueAt = new ConcurrentHashMap<>();
    int[] perShard = new int[SHARDS];
    for (int n = 0; jobs.size() < SHARDS * 18; n++) {
      String id = "job-" + n;
      int shard = keys.shardIndexOf(id);
      if (perShard[shard] == 18) {
        continue;
      }
      long due = stopAt + 300 + 200L * perShard[shard]++;
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

    // when each job of the healthy shards was first seen in ready (polled every 10 ms, node by node)
    Map<String, Long> seenAt = new ConcurrentHashMap<>();
    List<Jedis> healthyNodes = new ArrayList<>();
    int slot0 = JedisClusterCRC16.getSlot(keys.shard(0).ready());
    hung = cluster.node(cluster.ownerOf(slot0).getPort());
    for (int s = 1; s < SHARDS; s++) {
      healthyNodes.add(new Jedis("127.0.0.1", cluster.ownerOf(JedisClusterCRC16.getSlot(keys.shard(s).ready())).getPort()));
    }
    Thread watch = new Thread(() -> {
      while (!shutdown.isRequested()) {
        for (int s = 1; s < SHARDS; s++) {
          for (String id : healthyNodes.get(s - 1).lrange(keys.shard(s).ready(), 0, -1)) {
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

    Thread.sleep(Math.max(0, stopAt - System.currentTimeMillis()));
    long stoppedAt = System.currentTimeMillis();
    signal("STOP", hung);
    Thread.sleep(HANG_MS);
    signal("CONT", hung);
    long contAt = System.currentTimeMillis();
    RedisServer wasHung = hung;
    hung = null;

    await("every job forwarded, shard 0's once its master goes on").atMost(Duration.ofSeconds(30)).until(() -> {
      long ready = 0;
      for (Keys shard : keys.allShards()) {
        ready += client.llen(shard.ready());
      }
      return ready == jobs.size();
    });
    long dueWhileHung = 0;
    long latest = 0;
    List<String> late = new ArrayList<>();
    for (Map.Entry<String, Long> e : dueAt.entrySet()) {
      long due = e.getValue();
      if (keys.shardIndexOf(e.getKey()) == 0 || due < stoppedAt || due > contAt) {
        continue;
      }
      dueWhileHung++;
      long lateMs = seenAt.getOrDefault(e.getKey(), Long.MAX_VALUE) - due;
      latest = Math.max(latest, lateMs);
      if (lateMs > LATE_BOUND_MS) {
        late.add(e.getKey() + " (shard " + keys.shardIndexOf(e.getKey()) + ") " + lateMs + " ms late");
      }
    }
    healthyNodes.forEach(Jedis::close);
    System.out.printf("shard 0's master :%d hung for %d ms; %d jobs of shards 1 and 2 due meanwhile, the latest"
        + " %d ms after due (10 ms polls)%n", wasHung.port(), contAt - stoppedAt, dueWhileHung, latest);
    assertTrue(dueWhileHung >= 20, "jobs of the healthy shards fell due while shard 0's master hung: " + dueWhileHung);
    assertEquals(List.of(), late, "jobs of the healthy shards due while shard 0's master hung ("
        + (contAt - stoppedAt) + " ms) reached ready within " + LATE_BOUND_MS + " ms of due");
    long records = 0;
    for (Keys shard : keys.allShards()) {
      records += client.hlen(shard.jobs());
    }
    assertEquals(jobs.size(), records, "every job's record is kept");
  }
}
