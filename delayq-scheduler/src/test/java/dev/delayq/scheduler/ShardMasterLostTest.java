package dev.delayq.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.Keys;
import dev.delayq.testing.RedisCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A scheduler of a queue of three shards on a Redis Cluster of three masters (a replica each),
 * each shard on its own master, loses the master of shard 0 (SIGKILL: its calls fail until its
 * replica takes over, cluster-node-timeout later). The jobs of shards 1 and 2 that fall due
 * meanwhile must be forwarded on time, and shard 0's once its replica serves; none is lost.
 */
class ShardMasterLostTest {
  private static final int NODE_TIMEOUT_MS = 3000;
  private static final long LATE_BOUND_MS = 1000;

  private RedisCluster cluster;
  private ShardedSchedulerOnCluster run;

  @AfterEach
  void close() throws InterruptedException {
    if (run != null) {
      run.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theOtherShardsAreForwardedOnTimeWhileOneShardsMasterIsLost() throws Exception {
    cluster = RedisCluster.startWithReplicas(NODE_TIMEOUT_MS);
    // jobs due every 200 ms from 300 ms to 2.9 s after the kill, in every shard
    long killAt = System.currentTimeMillis() + 1500;
    run = new ShardedSchedulerOnCluster(cluster, "shard-lost-test", killAt, 14,
        (client, shard, ready) -> client.lrange(ready, 0, -1));
    Keys keys = run.keys;

    Thread.sleep(Math.max(0, killAt - System.currentTimeMillis()));
    int slot0 = JedisClusterCRC16.getSlot(keys.shard(0).ready());
    long killedAt = System.currentTimeMillis();
    cluster.killMasterOf(slot0, Duration.ofSeconds(30));
    long failedOverAt = System.currentTimeMillis();

    run.awaitEveryJobForwarded("every job forwarded, shard 0's once its replica serves");
    ShardedSchedulerOnCluster.Lateness l = run.healthyShardsDueBetween(killedAt, failedOverAt, LATE_BOUND_MS);
    System.out.printf("shard 0 without a master for %d ms; %d jobs of shards 1 and 2 due meanwhile, the latest"
        + " %d ms after due (10 ms polls)%n", failedOverAt - killedAt, l.due(), l.latestMs());
    assertTrue(l.due() >= 10, "jobs of the healthy shards fell due while shard 0 had no master: "
        + l.due() + " (failover took " + (failedOverAt - killedAt) + " ms)");
    assertEquals(List.of(), l.late(), "jobs of the healthy shards due while shard 0's master was lost ("
        + (failedOverAt - killedAt) + " ms) reached ready within " + LATE_BOUND_MS + " ms of due");
    assertEquals(run.dueAt.size(), run.records(), "every job's record is kept");
  }
}
