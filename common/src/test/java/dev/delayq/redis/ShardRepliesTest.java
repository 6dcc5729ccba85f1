package dev.delayq.redis;

import dev.delayq.redisserver.RedisServer;
import dev.delayq.redisserver.TestCa;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The calls a scheduler makes on several shards in one round trip, on a cluster of three masters
 * (no replicas) one of which is SIGKILLed: the dead master's shard fails alone and at once, and
 * the other shards' calls are made and answered.
 */
class ShardRepliesTest {
  private static final int SHARDS = 3;

  @Test
  void aLostMasterFailsOnlyItsShardsCallInTheRoundTripAndTheOthersAreAnswered() throws Exception {
    try (RedisCluster cluster = RedisCluster.start()) {
      String queue = cluster.queueSpreadOverMasters(SHARDS, false);
      DelayqConfig config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_CLUSTER", cluster.seeds(),
          "DELAYQ_QUEUE", queue, "DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS)));
      try (RedisConnection redis = RedisConnector.connect(config, "shard-replies-test", 8)) {
        Keys keys = Keys.of(config);
        RedisBroker broker = new RedisBroker(redis, keys);
        broker.prepare();
        List<NewJob> jobs = new ArrayList<>();
        for (int n = 0; jobs.size() < 30; n++) {
          jobs.add(QueueProbe.delayed("job-" + n, "{}", 300));
        }
        broker.enqueueAll(jobs);
        Thread.sleep(600); // every job due, still in delayed
        int dead = 1;
        cluster.node(cluster.ownerOf(JedisClusterCRC16.getSlot(keys.shard(dead).ready())).getPort()).kill();

        long before = System.nanoTime();
        List<ShardReply<Forwarded>> forwards = broker.scheduling().moveDueToReadyEach(List.of(0, 1, 2), 1000, 0);
        List<ShardReply<Boolean>> leases = broker.scheduling().holdLeases(List.of(0, 1, 2), "me", 10_000);
        List<ShardReply<Integer>> trims = broker.scheduling().forgetEndedEach(List.of(0, 1, 2), 1000);
        long tookMs = (System.nanoTime() - before) / 1_000_000;

        for (int s = 0; s < SHARDS; s++) {
          assertEquals(s, forwards.get(s).shard());
          if (s == dead) {
            assertNotNull(forwards.get(s).failure(), "the dead master's forward fails");
            assertNotNull(leases.get(s).failure(), "the dead master's lease renewal fails");
            assertNotNull(trims.get(s).failure(), "the dead master's trim fails");
          } else {
            assertNull(forwards.get(s).failure(), "shard " + s + "'s forward is answered");
            assertEquals(redis.client().llen(keys.shard(s).ready()), forwards.get(s).value().moved(),
                "shard " + s + "'s due jobs are moved to its ready list");
            assertEquals(true, leases.get(s).value(), "shard " + s + "'s lease is taken");
            assertEquals(0, trims.get(s).value());
          }
        }
        assertTrue(tookMs < 1000, "a lost master fails its shard's calls at once, with no retries that "
            + "wait for the slot map to change (took " + tookMs + " ms)");
      }
    }
  }

  /**
   * A master that hangs (SIGSTOP) instead: the calls of the round trip are answered for the other
   * shards, its shard's call is left in flight, and no later call is sent to it until it answers,
   * so that forwarding stays one call at a time per shard: after SIGCONT its node has run the one
   * forward sent before the hang was seen, not one per pass.
   */
  @Test
  void aHungMastersShardIsLeftInFlightAndNotSentAgainUntilItAnswers() throws Exception {
    try (RedisCluster cluster = RedisCluster.start()) {
      String queue = cluster.queueSpreadOverMasters(SHARDS, false);
      DelayqConfig config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_CLUSTER", cluster.seeds(),
          "DELAYQ_QUEUE", queue, "DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS)));
      try (RedisConnection redis = RedisConnector.connect(config, "shard-replies-test", 8)) {
        Keys keys = Keys.of(config);
        RedisBroker broker = new RedisBroker(redis, keys);
        broker.prepare();
        int hung = 1;
        dev.delayq.redisserver.RedisServer node = cluster.node(
            cluster.ownerOf(JedisClusterCRC16.getSlot(keys.shard(hung).ready())).getPort());
        broker.scheduling().moveDueToReadyEach(List.of(0, 1, 2), 1000, 0); // every connection made, every script loaded
        long before = forwardsRunOn(node);
        signal("STOP", node);
        try {
          for (int pass = 0; pass < 5; pass++) {
            long sent = System.nanoTime();
            List<ShardReply<Forwarded>> forwards = broker.scheduling().moveDueToReadyEach(List.of(0, 1, 2), 1000, 0);
            long tookMs = (System.nanoTime() - sent) / 1_000_000;
            assertTrue(forwards.get(hung).failure() instanceof NodeInFlightException,
                "pass " + pass + ": the hung master's forward is in flight, not failed: " + forwards.get(hung).failure());
            assertNull(forwards.get(0).failure(), "pass " + pass + ": shard 0's forward is answered");
            assertNull(forwards.get(2).failure(), "pass " + pass + ": shard 2's forward is answered");
            assertTrue(tookMs < 1000, "pass " + pass + " waited " + tookMs + " ms for the hung master");
            assertTrue(broker.claims().shardHangs(hung), "the hung master's shard is seen to hang");
          }
        } finally {
          signal("CONT", node);
        }
        Thread.sleep(500); // for the node to run what its socket holds
        assertEquals(1, forwardsRunOn(node) - before, "forwards the hung master ran: the one sent as it hung, "
            + "none of the passes after");
        long until = System.nanoTime() + 10_000_000_000L;
        while (broker.scheduling().moveDueToReadyEach(List.of(hung), 1000, 0).get(0).failure() != null) {
          assertTrue(System.nanoTime() < until, "the hung master's shard answers again within 10 s of SIGCONT");
          Thread.sleep(10);
        }
        assertTrue(!broker.claims().shardHangs(hung), "it is not seen to hang once it answers");
      }
    }
  }

  /**
   * A worker's heartbeat on a queue of three shards while shard 0's master hangs (SIGSTOP, 3 s) for
   * longer than the heartbeat's TTL (1 s, sent every 200 ms as a worker's heartbeat thread sends
   * it, again after a failed beat): the consumers stay registered and unexpired in shards 1 and 2
   * all along, so the scheduler takes back none of the jobs they run there (it would run them twice).
   */
  @Test
  void aHungMasterKeepsNoOtherShardFromBeating() throws Exception {
    try (RedisCluster cluster = RedisCluster.start()) {
      String queue = cluster.queueSpreadOverMasters(SHARDS, false);
      DelayqConfig config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_CLUSTER", cluster.seeds(),
          "DELAYQ_QUEUE", queue, "DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS)));
      try (RedisConnection redis = RedisConnector.connect(config, "shard-replies-test", 8)) {
        Keys keys = Keys.of(config);
        RedisBroker broker = new RedisBroker(redis, keys);
        broker.prepare();
        List<String> consumers = List.of("w1-c0", "w1-c1");
        long ttlMs = 1000;
        broker.consumerRegistry().heartbeat(consumers, ttlMs);
        dev.delayq.redisserver.RedisServer node = cluster.node(
            cluster.ownerOf(JedisClusterCRC16.getSlot(keys.shard(0).consumers())).getPort());
        java.util.concurrent.atomic.AtomicBoolean beating = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread beat = new Thread(() -> {
          while (beating.get()) {
            try {
              broker.consumerRegistry().heartbeat(consumers, ttlMs);
            } catch (redis.clients.jedis.exceptions.JedisException e) {
              // a failed beat is tried again at the next one, as the heartbeat thread does
            }
            try {
              Thread.sleep(200);
            } catch (InterruptedException e) {
              return;
            }
          }
        }, "heartbeat");
        beat.start();
        List<String> expired = new ArrayList<>();
        signal("STOP", node);
        try {
          long until = System.currentTimeMillis() + 3000;
          while (System.currentTimeMillis() < until) {
            for (int s = 1; s < SHARDS; s++) {
              int port = cluster.ownerOf(JedisClusterCRC16.getSlot(keys.shard(s).consumers())).getPort();
              try (redis.clients.jedis.Jedis j = new redis.clients.jedis.Jedis("127.0.0.1", port)) {
                long now = Long.parseLong(j.time().get(0)) * 1000 + Long.parseLong(j.time().get(1)) / 1000;
                for (String c : consumers) {
                  Double expiry = j.zscore(keys.shard(s).consumers(), c);
                  if (expiry == null || expiry <= now) {
                    expired.add(c + " in shard " + s + " at " + (until - System.currentTimeMillis()) + " ms before the end");
                  }
                }
              }
            }
            Thread.sleep(50);
          }
        } finally {
          signal("CONT", node);
          beating.set(false);
          beat.join(10_000);
        }
        assertEquals(List.of(), expired, "the healthy shards' consumers stay unexpired while shard 0's master hangs");
      }
    }
  }

  private static void signal(String signal, dev.delayq.redisserver.RedisServer node) throws Exception {
    new ProcessBuilder("kill", "-" + signal, Long.toString(node.pid())).inheritIO().start().waitFor();
  }

  /** How many script calls {@code node} has run, as its INFO counts them. */
  private static long forwardsRunOn(dev.delayq.redisserver.RedisServer node) {
    try (redis.clients.jedis.Jedis j = new redis.clients.jedis.Jedis("127.0.0.1", node.port())) {
      for (String line : j.info("commandstats").split("\r\n")) {
        if (line.startsWith("cmdstat_evalsha:")) {
          return Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
        }
      }
      return 0;
    }
  }
}
