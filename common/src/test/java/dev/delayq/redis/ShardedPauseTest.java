package dev.delayq.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.testing.RedisCluster;
import dev.delayq.testing.RedisFixture;
import dev.delayq.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Pause and resume of a queue of three shards, on one plain Redis and on the three-master cluster
 * (each shard on its own master): a pause holds the due jobs of every shard at the claim, a resume
 * gives each back once, a paused type leaves the other types running in every shard, and a pause
 * that one shard did not take shows as "paused on 2 of 3 shards" until a second run finishes it.
 * The claims are the workers' own claim scripts; a ledger counts what each claim took.
 */
class ShardedPauseTest {
  private static final int SHARDS = 3;
  private static final long TTL_MS = 30_000;

  private RedisConnection redis;
  private Keys keys;
  private RedisBroker broker;
  private Admin admin;
  private Inspector inspector;
  private InvariantCheck invariant;
  /** Every claim of each id: a job claimed twice ran twice. */
  private final Map<String, Integer> ledger = new HashMap<>();

  private void open(String where) {
    open(where.equals("cluster") ? RedisCluster.shared() : null);
  }

  private void open(RedisCluster clusterOrNull) {
    Map<String, String> env = new HashMap<>();
    String queue;
    if (clusterOrNull != null) {
      queue = clusterOrNull.queueSpreadOverMasters(SHARDS, false);
      env.put("DELAYQ_REDIS_CLUSTER", clusterOrNull.seeds());
    } else {
      queue = RedisFixture.freshQueue();
      env.put("DELAYQ_REDIS_URL", RedisFixture.get().url());
    }
    env.put("DELAYQ_QUEUE", queue);
    env.put("DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS));
    DelayqConfig config = new ConfigLoader().load(null, env);
    redis = RedisConnector.connect(config, "sharded-pause-test", 8);
    keys = Keys.of(config);
    broker = new RedisBroker(redis, keys);
    broker.prepare();
    admin = new Admin(redis, keys, 3);
    inspector = new Inspector(redis.client(), keys);
    invariant = new InvariantCheck(redis.client(), keys);
  }

  @AfterEach
  void close() {
    if (redis != null) {
      redis.close();
    }
  }

  /** {@code perShard} jobs of {@code type} due now in every shard (straight to ready); their ids. */
  private List<String> dueInEveryShard(String type, int perShard) {
    Map<Integer, Integer> counts = new HashMap<>();
    List<String> ids = new ArrayList<>();
    for (int i = 0; ids.size() < perShard * SHARDS; i++) {
      String id = type + "-" + i;
      int shard = keys.shardIndexOf(id);
      if (counts.merge(shard, 1, Integer::sum) <= perShard) {
        broker.enqueue(new NewJob(id, "{\"type\":\"" + type + "\",\"maxAttempts\":5", "{}", 0, false));
        ids.add(id);
      }
    }
    return ids;
  }

  /**
   * Claims from every shard, as consumers do, until a round over the shards claims nothing, and
   * acknowledges each job at once (it ran). Returns the shards that served a job.
   */
  private Set<Integer> runEverythingClaimable(int... shards) {
    Set<Integer> served = new TreeSet<>();
    boolean any = true;
    while (any) {
      any = false;
      for (int shard : shards) {
        Batch b = broker.claims().claimReady("c1", TTL_MS, 100, null, shard);
        if (b.jobs().isEmpty()) {
          continue;
        }
        any = true;
        served.add(b.shard()); // an empty shard's claim goes to the longest backlog of the others
        for (Claimed c : b.jobs()) {
          ledger.merge(c.id(), 1, Integer::sum);
        }
        List<Delivery> done = b.jobs().stream().map(Claimed::delivery).toList();
        broker.acks().ackAll(List.of(new Report("c1", null, done)));
      }
    }
    return served;
  }

  private Set<Integer> runEverythingClaimable() {
    return runEverythingClaimable(0, 1, 2);
  }

  private void assertEachRanOnce(List<String> ids) {
    assertEquals(new TreeSet<>(ids), new TreeSet<>(ledger.keySet()), "lost 0 (and nothing else ran)");
    ledger.forEach((id, n) -> assertEquals(1, n, id + " ran " + n + " times"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"plain", "cluster"})
  void aPausedShardedQueueStartsNoJobOnAnyShardAndResumedEachJobRunsOnce(String where) {
    open(where);
    assertTrue(admin.pause(Admin.WHOLE_QUEUE));
    assertFalse(admin.pause(Admin.WHOLE_QUEUE), "a second pause finds every shard paused");
    List<String> ids = dueInEveryShard("t", 20);

    assertEquals(Set.of(), runEverythingClaimable(), "no shard started a job while paused");
    assertEquals(Map.of(), ledger);
    Inspector.Flow flow = admin.flow();
    assertTrue(flow.queuePaused());
    assertEquals(Map.of(), flow.partlyPaused());
    assertEquals(Map.of("t", 60L), flow.held(), "the held jobs of the three shards, summed");
    for (Keys shard : keys.allShards()) {
      assertEquals(20, redis.client().llen(shard.held("t")), "shard " + shard.shard() + " holds its own");
    }
    assertEquals(List.of(), invariant.breaches(), "held jobs are in their place, each in its shard");

    Resumed r = admin.resume(Admin.WHOLE_QUEUE);
    assertTrue(r.wasPaused());
    assertEquals(60, r.givenBack());
    assertEquals(Set.of(0, 1, 2), runEverythingClaimable());
    assertEachRanOnce(ids);
    assertEquals(new Inspector.Flow(Map.of(), Map.of()), admin.flow());
    assertEquals(new Inspector.Depths(0, 0, 0, 0, 0), inspector.depths());
    assertEquals(List.of(), invariant.breaches());
  }

  @ParameterizedTest
  @ValueSource(strings = {"plain", "cluster"})
  void aPausedTypeLeavesTheOtherTypesRunningOnEveryShard(String where) {
    open(where);
    admin.pause("pay");
    List<String> pay = dueInEveryShard("pay", 5);
    List<String> mail = dueInEveryShard("mail", 5);

    assertEquals(Set.of(0, 1, 2), runEverythingClaimable(), "mail ran in every shard");
    assertEachRanOnce(mail);
    assertEquals(Map.of("pay", 15L), admin.flow().held());
    assertEquals(Set.of("pay"), admin.flow().paused().keySet());

    assertEquals(15, admin.resume("pay").givenBack());
    runEverythingClaimable();
    List<String> all = new ArrayList<>(mail);
    all.addAll(pay);
    assertEachRanOnce(all);
  }

  @Test
  void aPauseOneShardRefusedShowsAsPartlyPausedAndASecondPauseFinishesIt() {
    open("plain");
    List<String> ids = dueInEveryShard("t", 4);
    // shard 1's pause hash cannot be written (WRONGTYPE): its HSETNX fails, the others' do not
    redis.client().set(keys.shard(1).paused(), "not a hash");

    ShardsNotDoneException e = assertThrows(ShardsNotDoneException.class, () -> admin.pause(Admin.WHOLE_QUEUE));
    assertEquals(List.of(1), e.notDone());
    assertTrue(e.getMessage().startsWith("pause of queue " + keys.queue() + ": not done on shard 1 (WRONGTYPE"),
        e.getMessage());
    assertTrue(e.getMessage().contains("of 3; done on 0, 2. Run it again"), e.getMessage());
    redis.client().del(keys.shard(1).paused());
    redis.client().hset(keys.shard(2).paused(), "*", "1000"); // as if shard 2 had been paused at 1 s

    Inspector.Flow half = admin.flow();
    assertFalse(half.queuePaused(), "not paused on every shard");
    assertEquals(Map.of(), half.paused());
    assertEquals(Map.of("*", new Inspector.ShardsPaused(2, 3, 1000)), half.partlyPaused());
    assertEquals("paused on 2 of 3 shards", half.partlyPaused().get("*").toString());
    assertEquals(Set.of(1), runEverythingClaimable(), "shard 1, not paused, runs its jobs; 0 and 2 hold theirs");

    assertTrue(admin.pause(Admin.WHOLE_QUEUE), "the second run pauses shard 1");
    Inspector.Flow whole = admin.flow();
    assertEquals(Map.of("*", 1000L), whole.paused(), "paused since its first shard's pause");
    assertEquals(Map.of(), whole.partlyPaused());

    admin.resume(Admin.WHOLE_QUEUE);
    runEverythingClaimable();
    assertEachRanOnce(ids);
  }

  /**
   * A real master stopped (SIGKILL) under a pause and later under a resume: the shard it serves
   * is named, the others are done, and once it is back (its data saved before the kill) a second
   * run finishes the pause, then the resume; every job runs once.
   */
  @Test
  void aShardWhoseMasterIsDownIsNamedAndASecondRunFinishesThePauseAndTheResume() throws Exception {
    try (RedisCluster cluster = RedisCluster.start()) {
      for (RedisServer node : cluster.nodes()) {
        try (Jedis j = new Jedis("127.0.0.1", node.port())) {
          j.configSet("cluster-require-full-coverage", "no"); // the others serve while one is down
        }
      }
      open(cluster);
      List<String> ids = dueInEveryShard("t", 4);

      RedisServer shard2 = stop(cluster, 2);
      long before = System.nanoTime();
      ShardsNotDoneException pause = assertThrows(ShardsNotDoneException.class, () -> admin.pause(Admin.WHOLE_QUEUE));
      System.out.printf("pause with shard 2's master down failed after %d ms: %s%n",
          (System.nanoTime() - before) / 1_000_000, pause.getMessage());
      assertEquals(List.of(2), pause.notDone(), pause.getMessage());
      for (int shard : List.of(0, 1)) {
        assertTrue(redis.client().hexists(keys.shard(shard).paused(), "*"), "shard " + shard + " paused meanwhile");
      }
      restart(cluster, shard2, 2);
      assertEquals(Map.of("*", 2), partly(admin.flow()), "the half-done pause shows");
      assertTrue(admin.pause(Admin.WHOLE_QUEUE), "the second run pauses shard 2");
      assertTrue(admin.flow().queuePaused());
      assertEquals(Set.of(), runEverythingClaimable(), "no shard starts a job");
      assertEquals(12L, admin.flow().heldTotal());

      RedisServer shard1 = stop(cluster, 1);
      ShardsNotDoneException resume = assertThrows(ShardsNotDoneException.class, () -> admin.resume(Admin.WHOLE_QUEUE));
      assertEquals(List.of(1), resume.notDone(), resume.getMessage());
      restart(cluster, shard1, 1);
      assertEquals(Map.of("*", 1), partly(admin.flow()), "paused on shard 1 alone");
      assertEquals(Set.of(0, 2), runEverythingClaimable(), "shards 0 and 2 were resumed; shard 1 holds its jobs");
      assertEquals(Map.of("t", 4L), admin.flow().held());
      Resumed r = admin.resume(Admin.WHOLE_QUEUE);
      assertEquals(4, r.givenBack(), "the second run gives back shard 1's held jobs");
      assertEquals(Set.of(1), runEverythingClaimable());
      assertEachRanOnce(ids);
      assertEquals(List.of(), invariant.breaches());
    }
  }

  private static Map<String, Integer> partly(Inspector.Flow flow) {
    Map<String, Integer> out = new HashMap<>();
    flow.partlyPaused().forEach((scope, p) -> out.put(scope, p.shards()));
    return out;
  }

  /** SIGKILLs the master serving shard {@code shard}, its data saved first (so a restart has its jobs). */
  private RedisServer stop(RedisCluster cluster, int shard) {
    int slot = JedisClusterCRC16.getSlot(keys.shard(shard).jobs());
    RedisServer node = cluster.node(cluster.ownerOf(slot).getPort());
    try (Jedis j = new Jedis("127.0.0.1", node.port())) {
      j.save();
    }
    node.kill();
    return node;
  }

  /** Starts the node again (it loads its dump and rejoins with its slots) and waits until shard {@code shard} answers. */
  private void restart(RedisCluster cluster, RedisServer node, int shard) {
    node.restart();
    try (Jedis j = new Jedis("127.0.0.1", node.port())) {
      j.configSet("cluster-require-full-coverage", "no");
    }
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> redis.client().hlen(keys.shard(shard).jobs()) > 0);
  }
}
