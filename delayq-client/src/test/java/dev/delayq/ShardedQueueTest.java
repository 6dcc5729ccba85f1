package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.Admin;
import dev.delayq.redis.Batch;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.DelayedReads;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.Forwarded;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.JobBrowser;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.Keys;
import dev.delayq.redis.Moved;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.Recovery;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.Report;
import dev.delayq.redis.ShardCountMismatch;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.process.RunningFile;
import dev.delayq.testing.RedisCluster;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A queue of three shards (queue.shards: 3) on the three-master cluster, its shards on three
 * different masters, and on one plain Redis (every shard's slot on the one server): placement by
 * id, due order per shard, the whole lifecycle, claims that rotate over the shards, recovery of
 * a gone process in every shard, and the refusal of a changed shard count.
 */
class ShardedQueueTest {
  private static final int SHARDS = 3;

  private RedisConnection redis;
  private Keys keys;
  private RedisBroker broker;
  private DelayqConfig config;

  private void open(String where) {
    Map<String, String> env = new HashMap<>();
    String queue;
    if (where.equals("cluster")) {
      RedisCluster cluster = RedisCluster.shared();
      queue = cluster.queueSpreadOverMasters(SHARDS, false);
      env.put("DELAYQ_REDIS_CLUSTER", cluster.seeds());
    } else {
      queue = RedisFixture.freshQueue();
      env.put("DELAYQ_REDIS_URL", RedisFixture.get().url());
    }
    env.put("DELAYQ_QUEUE", queue);
    env.put("DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS));
    config = new ConfigLoader().load(null, env);
    redis = RedisConnector.connect(config, "sharded-test", 8);
    keys = Keys.of(config);
    broker = new RedisBroker(redis, keys);
    broker.prepare();
  }

  @AfterEach
  void close() {
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void workflowsAreRefusedOnAShardedQueueWithAMessageThatSaysWhyAndPlainJobsStillGo() {
    open("plain");
    try (DelayQueue producer = DelayQueue.connect(config)) {
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> producer.delay("t", Map.of(), Duration.ZERO, JobOptions.defaults().awaitable()));
      assertTrue(e.getMessage().contains("queue.shards: 1"), e.getMessage());
      assertThrows(IllegalStateException.class, () -> producer.openBatch());
      assertThrows(IllegalStateException.class, () -> producer.chain(JobRequest.delay("t", Map.of(), Duration.ZERO)));
      assertTrue(producer.delay("t", Map.of(), Duration.ofMinutes(1)).accepted());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"cluster", "plain"})
  void jobsSpreadOverTheShardsByIdAndLiveTheirWholeLifeThere(String where) throws Exception {
    open(where);
    if (where.equals("cluster")) {
      Set<Integer> slots = new HashSet<>();
      for (Keys shard : keys.allShards()) {
        slots.add(JedisClusterCRC16.getSlot(shard.jobs()));
        assertTrue(shard.jobs().contains("{" + keys.queue() + "#" + shard.shard() + "}"), shard.jobs());
      }
      assertEquals(SHARDS, slots.size());
    }
    List<String> ids = new ArrayList<>();
    try (DelayQueue producer = DelayQueue.connect(config)) {
      List<dev.delayq.JobRequest> batch = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        ids.add("job-" + i);
        // later ids fall due first: due order, not enqueue order, decides
        batch.add(dev.delayq.JobRequest.delay("t", Map.of("n", i), Duration.ofMillis(400 - i * 10))
            .with(JobOptions.withId("job-" + i)));
      }
      producer.enqueueAll(batch);
      assertTrue(producer.delay("t", Map.of(), Duration.ofHours(1), JobOptions.withId("job-3")).duplicate());
      producer.delay("t", Map.of(), Duration.ofHours(1), JobOptions.withId("cancel-me"));
      assertTrue(producer.cancel("cancel-me"));
    }
    // each job is in the shard its id names, and every shard got some
    for (Keys shard : keys.allShards()) {
      List<String> here = new DelayedReads(redis.client()).range(shard, "-inf", "+inf", 0, 1_000_000).stream()
          .map(Tuple::getElement).toList();
      assertFalse(here.isEmpty(), "shard " + shard.shard() + " got no job");
      for (String id : here) {
        assertEquals(shard.shard(), keys.shardIndexOf(id), id);
      }
    }
    assertEquals(new Inspector.Depths(30, 0, 0, 0, 30), new Inspector(redis.client(), keys).depths());

    Thread.sleep(450);
    for (int shard = 0; shard < SHARDS; shard++) {
      assertEquals(new DelayedReads(redis.client()).count(keys.shard(shard), "-inf", "+inf"), (long) broker.scheduling().moveDueToReady(shard, 1000).moved());
    }
    // due order within each shard; claims come from one shard at a time
    Map<Integer, List<Integer>> order = new HashMap<>();
    List<Claimed> claimed = new ArrayList<>();
    int from = 0;
    while (claimed.size() < 30) {
      Batch b = broker.claims().claimReady("c1", 30_000, 100, null, from);
      assertFalse(b.jobs().isEmpty());
      for (Claimed c : b.jobs()) {
        assertEquals(b.shard(), keys.shardIndexOf(c.id()));
        order.computeIfAbsent(b.shard(), k -> new ArrayList<>()).add(Integer.parseInt(c.id().substring(4)));
      }
      claimed.addAll(b.jobs());
      from = b.shard() + 1;
    }
    for (List<Integer> inShard : order.values()) {
      List<Integer> sorted = new ArrayList<>(inShard);
      sorted.sort((a, b) -> b - a);
      assertEquals(sorted, inShard, "due order within a shard");
    }

    // outcomes go to each delivery's shard: retry one, dead-letter one, acknowledge the rest at once
    Claimed retried = claimed.get(0);
    Claimed dead = claimed.get(29);
    assertEquals(Moved.MOVED, broker.outcomes().retry("c1", retried.delivery(), 0, "boom"));
    assertTrue(broker.outcomes().deadLetter("c1", dead.delivery(), "fatal"));
    List<Delivery> rest = claimed.subList(1, 29).stream().map(Claimed::delivery).toList();
    boolean[] acked = broker.acks().ackAll(List.of(new Report("c1", null, rest))).get(0);
    for (boolean a : acked) {
      assertTrue(a);
    }
    Admin admin = new Admin(redis, keys, 3);
    assertEquals(List.of(dead.id()), admin.deadList(null, 10).stream().map(Admin.DeadJob::id).toList());
    assertEquals(Admin.State.DEAD, admin.inspect(dead.id()).orElseThrow().state());
    assertEquals(Admin.State.DELAYED, admin.inspect(retried.id()).orElseThrow().state());
    assertEquals(Admin.State.ENDED, admin.inspect("job-5").orElseThrow().state(), "its id stays taken, in its shard");
    assertTrue(producer2Duplicate("job-5"));
    assertTrue(admin.retryDead(dead.id()));
    assertEquals(List.of(), new InvariantCheck(redis.client(), keys).breaches());
    assertEquals(31L, admin.stats().counters().get("t").get("enqueued"), "the 30 and the cancelled one");
    assertEquals(new Inspector.Depths(1, 1, 0, 0, 2), new Inspector(redis.client(), keys).depths());
  }

  @ParameterizedTest
  @ValueSource(strings = {"cluster", "plain"})
  void claimsRotateOverTheShardsSoABusyShardStarvesNoOther(String where) {
    open(where);
    // a busy shard 0 (20 jobs) beside one job in each other shard
    List<String> inShard0 = new ArrayList<>();
    List<String> others = new ArrayList<>();
    for (int i = 0; inShard0.size() < 20 || others.size() < SHARDS - 1; i++) {
      String id = "r" + i;
      int shard = keys.shardIndexOf(id);
      if (shard == 0 && inShard0.size() < 20) {
        inShard0.add(id);
      } else if (shard != 0 && others.stream().noneMatch(o -> keys.shardIndexOf(o) == shard)) {
        others.add(id);
      } else {
        continue;
      }
      broker.enqueue(new NewJob(id, "{\"type\":\"t\",\"maxAttempts\":5", "{}", 0, false));
    }
    for (int shard = 0; shard < SHARDS; shard++) {
      broker.scheduling().moveDueToReady(shard, 1000);
    }
    // one job per claim, as a consumer with prefetch 1 takes them, rotating past the shard that served
    List<Integer> served = new ArrayList<>();
    int from = 0;
    for (int i = 0; i < SHARDS; i++) {
      Batch b = broker.claims().claimReady("c1", 30_000, 1, null, from);
      served.add(b.shard());
      from = b.shard() + 1;
    }
    assertEquals(List.of(0, 1, 2), served, "each shard served within one round");
  }

  @Test
  void aScanOverTheShardsIsOneScriptCallBesideTheOtherShardsLengthsAndClaimsOnlyWhereJobsWait() {
    open("plain");
    String id = idInShard(2);
    broker.enqueue(new NewJob(id, "{\"type\":\"t\",\"maxAttempts\":5", "{}", 0, false));
    broker.scheduling().moveDueToReady(2, 1000);

    Map<String, Long> before = calls();
    Batch found = broker.claims().claimReady("c1", 30_000, 10, null, 0);
    Map<String, Long> after = calls();
    assertEquals(2, found.shard());
    assertEquals(List.of(id), found.jobs().stream().map(Claimed::id).toList());
    assertEquals(2, after.get("evalsha") - before.get("evalsha"),
        "shard 0's claim (its reply had the lengths of 1 and 2 beside it), then shard 2's; none on the empty shard 1");

    Batch none = broker.claims().claimReady("c1", 30_000, 10, null, 1);
    Map<String, Long> last = calls();
    assertTrue(none.jobs().isEmpty());
    assertEquals(1, last.get("evalsha") - after.get("evalsha"), "every shard empty: one call, as on one shard");
  }

  @ParameterizedTest
  @ValueSource(strings = {"cluster", "plain"})
  void whenTheFirstShardIsEmptyTheClaimGoesToTheLongestBacklogOfTheOthers(String where) {
    open(where);
    List<String> ids = List.of(idInShard(1), nthIdInShard(2, 1), nthIdInShard(2, 2), nthIdInShard(2, 3));
    for (String id : ids) {
      broker.enqueue(new NewJob(id, "{\"type\":\"t\",\"maxAttempts\":5", "{}", 0, false));
    }

    Batch b = broker.claims().claimReady("c1", 30_000, 1, null, 0);

    assertEquals(2, b.shard(), "3 jobs wait in shard 2, 1 in shard 1, none in shard 0");
    assertEquals(1, broker.claims().claimReady("c1", 30_000, 1, null, 1).shard(), "the first shard tried, when it has some");
  }

  @ParameterizedTest
  @ValueSource(strings = {"cluster", "plain"})
  void shardsDueTogetherAreForwardedInOnePipelineEachAnsweringForItself(String where) throws Exception {
    open(where);
    for (String id : List.of(idInShard(0), idInShard(2), nthIdInShard(2, 2))) {
      // 1 ms, not 0: a job due at once goes straight to ready
      broker.enqueue(new NewJob(id, "{\"type\":\"t\",\"maxAttempts\":5", "{}", 1, false));
    }
    broker.enqueue(new NewJob("later", "{\"type\":\"t\",\"maxAttempts\":5", "{}", 3_600_000, false));

    Thread.sleep(20);

    List<Forwarded> f = broker.scheduling().moveDueToReady(List.of(2, 0, 1), 1000, 0);

    assertEquals(List.of(2, 1, 0), f.stream().map(Forwarded::moved).toList(), "in the order asked");
    int laterShard = keys.shardIndexOf("later");
    for (int i = 0; i < 3; i++) {
      int shard = List.of(2, 0, 1).get(i);
      assertEquals(shard == laterShard, f.get(i).nextDueAt().isPresent(), "shard " + shard + "'s own next due time");
    }
    for (int shard = 0; shard < SHARDS; shard++) {
      assertEquals(shard == 0 ? 1 : shard == 2 ? 2 : 0, redis.client().llen(keys.shard(shard).ready()));
    }
  }

  private String nthIdInShard(int shard, int n) {
    for (int i = 0, found = 0; ; i++) {
      if (keys.shardIndexOf("s" + i) == shard && ++found == n) {
        return "s" + i;
      }
    }
  }

  @Test
  void pipelinesOverSeveralMastersStartNoThreads() {
    open("cluster");
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      jobs.add(new NewJob("p" + i, "{\"type\":\"t\",\"maxAttempts\":5", "{}", 60_000, false));
    }
    broker.enqueueAll(jobs);
    long started = threads.getTotalStartedThreadCount();
    for (int round = 0; round < 50; round++) {
      broker.enqueueAll(jobs); // each one pipeline to the three masters (the ids are taken: no-ops)
    }
    long more = threads.getTotalStartedThreadCount() - started;
    assertTrue(more <= 3, "50 pipelines to 3 masters started " + more + " threads (Jedis's own executor: 3 to 6 each)");
    assertEquals(new Inspector.Depths(30, 0, 0, 0, 30), new Inspector(redis.client(), keys).depths());
  }

  private String idInShard(int shard) {
    return nthIdInShard(shard, 1);
  }

  /** The calls the Redis has served so far, per command (INFO commandstats). */
  private Map<String, Long> calls() {
    Map<String, Long> out = new HashMap<>();
    for (String line : redis.client().info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_")) {
        String name = line.substring(8, line.indexOf(':'));
        String calls = line.substring(line.indexOf("calls=") + 6);
        out.put(name, Long.parseLong(calls.substring(0, calls.indexOf(','))));
      }
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"cluster", "plain"})
  void aGoneProcessIsTakenBackInEveryShardChargingOnlyTheRunningJob(String where) throws Exception {
    open(where);
    Map<Integer, String> onePerShard = new HashMap<>();
    for (int i = 0; onePerShard.size() < SHARDS; i++) {
      onePerShard.putIfAbsent(keys.shardIndexOf("g" + i), "g" + i);
    }
    for (String id : onePerShard.values()) {
      broker.enqueue(new NewJob(id, "{\"type\":\"t\",\"maxAttempts\":5", "{}", 0, false));
    }
    List<Delivery> held = new ArrayList<>();
    for (int shard = 0; shard < SHARDS; shard++) {
      broker.scheduling().moveDueToReady(shard, 1000);
      held.addAll(broker.claims().claimReady("w1@h:1:1", 30_000, 10, null, shard).jobs().stream()
          .map(Claimed::delivery).toList());
    }
    assertEquals(SHARDS, held.size());
    Delivery running = held.get(1);

    Recovery recovery = new Recovery(broker, new Inspector(redis.client(), keys), 3);
    List<Recovery.TakenBack> back = recovery.processGone("w1@h:1:", "worker killed", true,
        Optional.of(Map.of("w1@h:1:1", new RunningFile.Slot(running.element(), List.of()))));

    assertEquals(1, back.size());
    assertEquals(SHARDS, back.get(0).result().taken());
    assertEquals(1, back.get(0).result().charged());
    for (int shard = 0; shard < SHARDS; shard++) {
      assertEquals(1L, redis.client().llen(keys.shard(shard).ready()), "shard " + shard);
      assertEquals(0L, redis.client().zcard(keys.shard(shard).consumers()), "unregistered in " + shard);
    }
    assertEquals(1, JobRecord.parse(running.id(), redis.client().hget(keys.shardOf(running.id()).jobs(),
        running.id())).lost());
    assertEquals(List.of(), new InvariantCheck(redis.client(), keys).breaches());
  }

  @ParameterizedTest
  @ValueSource(strings = {"cluster", "plain"})
  void aChangedShardCountIsRefusedNamingBothCounts(String where) {
    open(where);
    DelayqConfig one = new ConfigLoader().load(null, withShards(1));
    ShardCountMismatch e = assertThrows(ShardCountMismatch.class,
        () -> new RedisBroker(redis, Keys.of(one)).prepare());
    assertTrue(e.getMessage().contains("queue.shards is 1") && e.getMessage().contains("created with 3"),
        e.getMessage());

    // a queue of one shard that holds jobs keeps its one shard
    String plainQueue = keys.queue() + "-one";
    Keys oneShard = new Keys(keys.prefix(), plainQueue);
    new RedisBroker(redis, oneShard).enqueue(new NewJob("x", "{\"type\":\"t\",\"maxAttempts\":5", "{}", 60_000, false));
    ShardCountMismatch grown = assertThrows(ShardCountMismatch.class,
        () -> new RedisBroker(redis, Keys.sharded(keys.prefix(), plainQueue, 4)).prepare());
    assertTrue(grown.getMessage().contains("queue.shards is 4") && grown.getMessage().contains("created with 1"),
        grown.getMessage());
    // and one shard stays exactly today's layout: nothing is recorded for it
    new RedisBroker(redis, oneShard).prepare();
    assertFalse(redis.client().exists(oneShard.layout()));
  }

  /** A second enqueue of a finished job's caller-chosen id, through the producer API: refused. */
  private boolean producer2Duplicate(String id) {
    try (DelayQueue producer = DelayQueue.connect(config)) {
      return producer.delay("t", Map.of(), Duration.ofHours(1), JobOptions.withId(id)).duplicate();
    }
  }

  private Map<String, String> withShards(int shards) {
    Map<String, String> env = new HashMap<>();
    if (config.redis().clusterNodes().isEmpty()) {
      env.put("DELAYQ_REDIS_URL", config.redis().url());
    } else {
      env.put("DELAYQ_REDIS_CLUSTER", config.redis().cluster());
    }
    env.put("DELAYQ_QUEUE", keys.queue());
    env.put("DELAYQ_QUEUE_SHARDS", Integer.toString(shards));
    return env;
  }

  @ParameterizedTest
  @ValueSource(strings = {"cluster", "plain"})
  void changesByIdGoToTheJobsShardAndListingSpansTheShardsWhileSchedulesAreRefused(String where) throws Exception {
    open(where);
    try (DelayQueue producer = DelayQueue.connect(config)) {
      Set<Integer> shardsUsed = new HashSet<>();
      for (int i = 0; i < 12; i++) {
        String id = "change-" + i;
        shardsUsed.add(keys.shardIndexOf(id));
        producer.delay("t", Map.of("n", i), Duration.ofHours(1), JobOptions.withId(id));
        assertEquals(dev.delayq.ChangeResult.Status.READY, producer.promote(id).status(), id);
        Keys home = keys.shardOf(id);
        assertTrue(redis.client().lrange(home.ready(), 0, -1).contains(id), id + " is ready in its own shard");
        assertEquals(dev.delayq.ChangeResult.Status.DELAYED,
            producer.reschedule(id, Duration.ofHours(2)).status(), id);
        assertTrue(new DelayedReads(redis.client()).score(home, id) != null, id + " is delayed in its own shard");
      }
      assertTrue(shardsUsed.size() > 1, "the ids spread over several shards: " + shardsUsed);
    }
    IllegalStateException schedules = assertThrows(IllegalStateException.class,
        () -> broker.scheduleStore().saveSchedule("every-minute", "{}", 60_000, -1, List.of()));
    assertTrue(schedules.getMessage().contains("queue.shards"), schedules.getMessage());
    JobBrowser.Page listed = new JobBrowser(redis.client(), keys).delayed(0, Long.MAX_VALUE,
        new JobBrowser.Query(null, "change-", 50, 0));
    assertEquals(12, listed.rows().size(), "the listing spans the shards: " + listed.rows());
    assertTrue(listed.rows().stream().allMatch(r -> r.type().equals("t")), "each record read in its shard");
    assertEquals(List.of(), new InvariantCheck(redis.client(), keys).breaches());
  }
}
