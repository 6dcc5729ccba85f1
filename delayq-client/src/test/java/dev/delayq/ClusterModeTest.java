package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.Admin;
import dev.delayq.redis.Batch;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.redis.Moved;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.Report;
import dev.delayq.redis.ServerCheck;
import dev.delayq.config.ConfigException;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.metrics.StatsRecorder;
import dev.delayq.testing.RedisCluster;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * delayq on a real three-master Redis Cluster (redis.cluster): the whole life of jobs through the
 * producer API, the broker's scripts, the admin reads and the check, on a queue whose slot is
 * served by a master other than the first seed, so every call must be routed (or redirected).
 */
class ClusterModeTest {
  private static final RedisCluster CLUSTER = RedisCluster.shared();

  private final String queue = queueAwayFromFirstSeed();
  private final DelayqConfig config = new ConfigLoader().load(null, Map.of(
      "DELAYQ_REDIS_CLUSTER", CLUSTER.seeds(), "DELAYQ_QUEUE", queue));
  private final RedisConnection redis = RedisConnector.connect(config, "cluster-test", 8);
  private final Keys keys = new Keys("delayq", queue);
  private final RedisBroker broker = new RedisBroker(redis, keys);
  private final Admin admin = new Admin(redis, keys, 3);
  private final Inspector inspector = new Inspector(redis.client(), keys);
  private final InvariantCheck invariant = new InvariantCheck(redis.client(), keys);

  @AfterEach
  void close() {
    redis.close();
  }

  @Test
  void jobsLiveTheirWholeLifeOnAClusterMasterThatIsNotTheSeed() throws Exception {
    redis.checkServer(true);
    broker.loadScripts();
    assertTrue(redis.cluster());
    try (DelayQueue producer = DelayQueue.connect(config)) {
      producer.delay("t", Map.of("n", 2), Duration.ofMillis(300), JobOptions.withId("second"));
      producer.delay("t", Map.of("n", 1), Duration.ofMillis(100), JobOptions.withId("first"));
      producer.delay("t", Map.of("n", 3), Duration.ofHours(1), JobOptions.withId("later"));
      assertTrue(producer.delay("t", Map.of(), Duration.ofHours(1), JobOptions.withId("later")).duplicate());
      assertTrue(producer.cancel("later"));
    }

    // due order: the scheduler's forward moves them in due order, once due
    awaitForwarded(2);
    Batch batch = broker.claims().claimReady("c1", 30_000, 10, null);
    assertEquals(List.of("first", "second"), batch.jobs().stream().map(Claimed::id).toList());

    // retry, then dead-letter the retried one, then acknowledge the other
    Delivery first = batch.jobs().get(0).delivery();
    Delivery second = batch.jobs().get(1).delivery();
    assertEquals(Moved.MOVED, broker.outcomes().retry("c1", first, 0, "boom"));
    assertTrue(broker.outcomes().deadLetter("c1", second, "fatal"));
    awaitForwarded(1);
    Claimed again = broker.claims().claim("c1", 1, 30_000).orElseThrow();
    assertEquals("first", again.id());
    assertEquals(List.of(true), List.of(broker.acks().ackAll(List.of(
        new Report("c1", null, List.of(again.delivery())))).get(0)[0]));

    // admin reads and the check go to the queue's master
    assertEquals(List.of("second"), admin.deadList(null, 10).stream().map(Admin.DeadJob::id).toList());
    assertEquals(Admin.State.DEAD, admin.inspect("second").orElseThrow().state());
    assertTrue(admin.retryDead("second"));
    assertEquals(new Inspector.Depths(0, 1, 0, 0, 1), inspector.depths());
    assertEquals(List.of(), invariant.breaches());
    assertTrue(admin.redisNowMs() > 0);

    // the per-second stats hashes share the queue's slot, so their pipeline goes to one master
    StatsRecorder stats = new StatsRecorder(keys);
    stats.started("t", 3);
    assertTrue(stats.flush(redis.client(), System.currentTimeMillis() / 1000) > 0);
    assertEquals(1L, admin.stats().counters().get("t").get("started"));
  }

  @Test
  void checkFindsAnOrphanInTheQueueSlotWithoutAKeyspaceScan() {
    broker.loadScripts();
    redis.client().hset(keys.jobs(), "orphan", "{\"type\":\"t\",\"payload\":{}}");
    // an in-flight list of a consumer nobody registered: found among the slot's keys
    redis.client().lpush(keys.inFlight("ghost"), "7|lost");

    List<String> found = invariant.breaches().stream().map(InvariantCheck.Breach::toString).sorted().toList();

    assertEquals(2, found.size(), found.toString());
    assertTrue(found.get(0).startsWith("lost: in inflight:ghost without a record"), found.toString());
    assertTrue(found.get(1).startsWith("orphan: record in jobs"), found.toString());
    assertEquals(List.of("ghost"), inspector.unregisteredConsumers());
  }

  @Test
  void theRedisClockIsReadFromTheQueuesMasterOnACluster() {
    // a keyless TIME cannot be dispatched by a cluster client; schedules, inspect and the
    // dashboard read this clock
    long before = System.currentTimeMillis();
    long now = broker.redisNowMs();
    assertTrue(Math.abs(now - before) < 5_000, "Redis time " + now + " against local " + before);
  }

  @Test
  void aPlainUrlOnAClusterNodeIsRefusedNamingRedisCluster() {
    DelayqConfig plain = new ConfigLoader().load(null, Map.of(
        "DELAYQ_REDIS_URL", "redis://127.0.0.1:" + CLUSTER.masters().get(0).port()));
    try (RedisConnection c = RedisConnector.connect(plain, "cluster-test", 1)) {
      ServerCheck.UnfitServerException e = assertThrows(ServerCheck.UnfitServerException.class,
          () -> c.checkServer(true));
      assertTrue(e.getMessage().contains("redis.cluster"), e.getMessage());
    }
  }

  @Test
  void clusterSettingIsRefusedNextToSentinels() {
    ConfigException e = assertThrows(ConfigException.class, () -> new ConfigLoader()
        .load(null, Map.of("DELAYQ_REDIS_CLUSTER", "127.0.0.1:1", "DELAYQ_REDIS_SENTINELS", "127.0.0.1:2",
            "DELAYQ_REDIS_MASTER_NAME", "m")));
    assertTrue(e.getMessage().contains("redis.cluster"), e.getMessage());
    assertFalse(new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_CLUSTER", "127.0.0.1:1")).redis().embedded());
  }

  private void awaitForwarded(int atLeast) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    int moved = 0;
    while (moved < atLeast) {
      moved += broker.scheduling().moveDueToReady(1000).moved();
      if (System.nanoTime() > deadline) {
        throw new AssertionError("only " + moved + " of " + atLeast + " jobs came due");
      }
      Thread.sleep(20);
    }
  }

  /** A fresh queue whose slot a master other than the first seed serves. */
  private static String queueAwayFromFirstSeed() {
    int firstSeed = CLUSTER.masters().get(0).port();
    while (true) {
      String q = RedisFixture.freshQueue();
      HostAndPort owner = CLUSTER.ownerOf(JedisClusterCRC16.getSlot(new Keys("delayq", q).jobs()));
      if (owner.getPort() != firstSeed) {
        return q;
      }
    }
  }
}
