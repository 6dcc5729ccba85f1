package dev.delayq.scheduler;

import dev.delayq.redis.Batch;
import static dev.delayq.testing.QueueProbe.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.testing.RedisCluster;
import dev.delayq.redisserver.RedisServer;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A scheduler of a queue of three shards on a Redis Cluster of three masters (no replicas, node
 * timeout 5 s: nothing fails over) whose master of shard 0 hangs for 4 s (SIGSTOP: it neither
 * answers nor refuses, as behind a partition that drops packets). The jobs of shards 1 and 2
 * that fall due meanwhile must be forwarded on time, and shard 0's once its master goes on
 * (SIGCONT); none is lost.
 */
class ShardMasterHungTest {
  private static final long HANG_MS = 4000;
  private static final long LATE_BOUND_MS = 1000;

  private RedisCluster cluster;
  private RedisServer hung;
  private ShardedSchedulerOnCluster run;
  /** The healthy shards' nodes, read directly (the ready watch never asks the cluster client's slot map). */
  private final Map<Integer, Jedis> healthyNodes = new ConcurrentHashMap<>();

  @AfterEach
  void close() throws Exception {
    if (hung != null) {
      signal("CONT", hung);
    }
    if (run != null) {
      run.close();
    }
    healthyNodes.values().forEach(Jedis::close);
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
    // jobs due every 200 ms from 300 ms to 3.7 s after the stop, in every shard
    long stopAt = System.currentTimeMillis() + 1500;
    run = new ShardedSchedulerOnCluster(cluster, "shard-hung-test", stopAt, 18,
        (client, shard, ready) -> healthyNodes.computeIfAbsent(shard,
            s -> new Jedis("127.0.0.1", cluster.ownerOf(JedisClusterCRC16.getSlot(ready)).getPort()))
            .lrange(ready, 0, -1));
    Keys keys = run.keys;
    hung = cluster.node(cluster.ownerOf(JedisClusterCRC16.getSlot(keys.shard(0).ready())).getPort());

    Thread.sleep(Math.max(0, stopAt - System.currentTimeMillis()));
    long stoppedAt = System.currentTimeMillis();
    signal("STOP", hung);
    Thread.sleep(HANG_MS);
    signal("CONT", hung);
    long contAt = System.currentTimeMillis();
    RedisServer wasHung = hung;
    hung = null;

    run.awaitEveryJobForwarded("every job forwarded, shard 0's once its master goes on");
    ShardedSchedulerOnCluster.Lateness l = run.healthyShardsDueBetween(stoppedAt, contAt, LATE_BOUND_MS);
    System.out.printf("shard 0's master :%d hung for %d ms; %d jobs of shards 1 and 2 due meanwhile, the latest"
        + " %d ms after due (10 ms polls)%n", wasHung.port(), contAt - stoppedAt, l.due(), l.latestMs());
    assertTrue(l.due() >= 20, "jobs of the healthy shards fell due while shard 0's master hung: " + l.due());
    assertEquals(List.of(), l.late(), "jobs of the healthy shards due while shard 0's master hung ("
        + (contAt - stoppedAt) + " ms) reached ready within " + LATE_BOUND_MS + " ms of due");
    assertEquals(run.dueAt.size(), run.records(), "every job's record is kept");
  }

  /**
   * Recovery due at every pass while shard 0's master hangs: shard 0 keeps its recovery busy
   * (thousands of expired consumers to look at, 100 a pass), so the master stops in the middle
   * of it, right after its forward answered; consumers of shards 1 and 2 expire during the hang
   * with a job each in flight. The healthy shards' jobs must still be forwarded within 1 s of
   * due, and the expired consumers' jobs back in ready within 1 s of their expiry.
   */
  @Test
  void theOtherShardsAreForwardedAndRecoveredWhileOneShardsMasterHangsInItsRecovery() throws Exception {
    cluster = RedisCluster.start();
    // (the set-up below takes a second or two: 60,000 consumers written)
    long stopAt = System.currentTimeMillis() + 3000;
    long expireAt = stopAt + 1000;
    Map<Integer, String> heldJob = new ConcurrentHashMap<>();
    run = new ShardedSchedulerOnCluster(cluster, "shard-hung-recovery-test", stopAt, 18,
        (client, shard, ready) -> healthyNodes.computeIfAbsent(shard,
            s -> new Jedis("127.0.0.1", cluster.ownerOf(JedisClusterCRC16.getSlot(ready)).getPort()))
            .lrange(ready, 0, -1),
        1_000_000L, fixture -> {
          RedisBroker broker = fixture.broker;
          Keys keys = fixture.keys;
          // a job in flight at a consumer of shards 1 and 2 whose heartbeat expires during the hang
          for (int n = 0; heldJob.size() < 2; n++) {
            int shard = keys.shardIndexOf("held-" + n);
            if (shard > 0 && !heldJob.containsKey(shard)) {
              heldJob.put(shard, "held-" + n);
              broker.enqueueAll(List.of(at("held-" + n, "{}", System.currentTimeMillis())));
              fixture.dueAt.put("held-" + n, System.currentTimeMillis());
            }
          }
          for (int shard : heldJob.keySet()) {
            broker.scheduling().moveDueToReady(List.of(shard), 10, 0);
            Batch b = broker.claims().claimReady("gone-" + shard, expireAt - System.currentTimeMillis(), 1,
                null, shard, 1);
            assertEquals(1, b.jobs().size(), "the held job of shard " + shard + " is claimed");
          }
          // shard 0: expired consumers enough to keep its recovery busy at every pass until the stop
          for (int chunk = 0; chunk < 6; chunk++) {
            Map<String, Double> expired = new java.util.HashMap<>();
            for (int i = 0; i < 10_000; i++) {
              expired.put("silent-" + chunk + "-" + i, 1.0);
            }
            fixture.client.zadd(keys.shard(0).consumers(), expired);
          }
        });
    Keys keys = run.keys;
    hung = cluster.node(cluster.ownerOf(JedisClusterCRC16.getSlot(keys.shard(0).ready())).getPort());

    assertTrue(stopAt - System.currentTimeMillis() > 0, "set up before the stop is due");
    Thread.sleep(Math.max(0, stopAt - System.currentTimeMillis()));
    assertTrue(run.client.zcard(keys.shard(0).consumers()) > 1000, "shard 0's recovery is still busy at the stop");
    long stoppedAt = System.currentTimeMillis();
    signal("STOP", hung);
    Thread.sleep(HANG_MS);
    signal("CONT", hung);
    long contAt = System.currentTimeMillis();
    RedisServer wasHung = hung;
    hung = null;

    run.awaitEveryJobForwarded("every job forwarded or recovered, shard 0's once its master goes on");
    ShardedSchedulerOnCluster.Lateness l = run.healthyShardsDueBetween(stoppedAt, contAt, LATE_BOUND_MS);
    List<String> lateRecovered = new java.util.ArrayList<>();
    long latestRecovered = 0;
    for (String id : heldJob.values()) {
      long after = run.seenAt.getOrDefault(id, Long.MAX_VALUE) - expireAt;
      latestRecovered = Math.max(latestRecovered, after);
      if (after > LATE_BOUND_MS) {
        lateRecovered.add(id + " " + after + " ms after its consumer expired");
      }
    }
    System.out.printf("shard 0's master :%d hung for %d ms in its recovery; %d jobs of shards 1 and 2 due meanwhile,"
        + " the latest %d ms after due; their expired consumers' jobs back in ready %d ms after expiry at most%n",
        wasHung.port(), contAt - stoppedAt, l.due(), l.latestMs(), latestRecovered);
    assertTrue(l.due() >= 20, "jobs of the healthy shards fell due while shard 0's master hung: " + l.due());
    assertEquals(List.of(), l.late(), "jobs of the healthy shards due while shard 0's master hung ("
        + (contAt - stoppedAt) + " ms) reached ready within " + LATE_BOUND_MS + " ms of due");
    assertEquals(List.of(), lateRecovered, "the healthy shards' expired consumers' jobs are recovered within "
        + LATE_BOUND_MS + " ms of the expiry, during the hang");
    assertEquals(run.dueAt.size(), run.records(), "every job's record is kept");
  }

  /**
   * A scheduler that stops while shard 0's master hangs gives back the leases of shards 1 and 2
   * at once (a scheduler that takes over, or comes back, need not wait for them to lapse); shard
   * 0's is left to lapse by itself.
   */
  @Test
  void aStoppingSchedulerReleasesTheOtherShardsLeasesWhileOneShardsMasterHangs() throws Exception {
    cluster = RedisCluster.start();
    for (RedisServer node : cluster.nodes()) {
      try (Jedis j = new Jedis("127.0.0.1", node.port())) {
        j.configSet("cluster-require-full-coverage", "no");
      }
    }
    String queue = cluster.queueSpreadOverMasters(ShardedSchedulerOnCluster.SHARDS, false);
    DelayqConfig config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_CLUSTER", cluster.seeds(),
        "DELAYQ_QUEUE", queue, "DELAYQ_QUEUE_SHARDS", Integer.toString(ShardedSchedulerOnCluster.SHARDS)));
    try (RedisConnection redis = RedisConnector.connect(config, "shard-hung-lease-test", 8)) {
      Keys keys = Keys.of(config);
      RedisBroker broker = new RedisBroker(redis, keys);
      broker.prepare();
      ShardLeases lease = new ShardLeases(broker, "me", 30_000);
      assertTrue(lease.tick(), "the scheduler holds its shards");
      for (int s = 0; s < ShardedSchedulerOnCluster.SHARDS; s++) {
        assertTrue(lease.holds(s), "shard " + s + "'s lease is held");
      }
      hung = cluster.node(cluster.ownerOf(JedisClusterCRC16.getSlot(keys.shard(0).leader())).getPort());
      signal("STOP", hung);
      long before = System.nanoTime();
      lease.release();
      long tookMs = (System.nanoTime() - before) / 1_000_000;
      for (int s = 1; s < ShardedSchedulerOnCluster.SHARDS; s++) {
        String leader = keys.shard(s).leader();
        try (Jedis j = new Jedis("127.0.0.1", cluster.ownerOf(JedisClusterCRC16.getSlot(leader)).getPort())) {
          assertEquals(null, j.get(leader), "shard " + s + "'s lease is given back");
        }
      }
      assertTrue(tookMs < 1000, "the release waited " + tookMs + " ms for the hung master");
    }
  }
}
