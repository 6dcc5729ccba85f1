package dev.delayq.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.Keys;
import dev.delayq.testing.RedisCluster;
import dev.delayq.testing.RedisServer;
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
}
