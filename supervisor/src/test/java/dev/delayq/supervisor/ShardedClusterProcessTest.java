package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A real supervisor, its scheduler and worker, and {@code bin/delayq}, on a queue of three shards
 * spread over the three masters of a real Redis Cluster (redis.cluster, queue.shards: 3): jobs
 * run in due order, a cancel and the check work, a worker killed with SIGKILL has the job it ran
 * in each shard charged and everything else given back, and resharding a shard's slot to another
 * master in the middle of a drain loses and repeats no job. The tests share the supervisor.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShardedClusterProcessTest {
  private static final int SHARDS = 3;

  @TempDir
  static Path home;
  static RedisCluster cluster;
  static Map<String, String> env;
  static DelayqConfig config;
  static Keys keys;
  static SupervisorProcess sup;
  static DelayQueue queue;

  @BeforeAll
  static void startSupervisorOnTheCluster() throws Exception {
    SupervisorProcess.requireChildJars();
    JobsJar.install(home);
    cluster = RedisCluster.shared();
    env = new HashMap<>();
    env.put("DELAYQ_REDIS_CLUSTER", cluster.seeds());
    // shard 0's slot is its master's lowest, so that `redis-cli --cluster reshard` moves it
    env.put("DELAYQ_QUEUE", cluster.queueSpreadOverMasters(SHARDS, true));
    env.put("DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS));
    env.put("DELAYQ_WEB_PORT", Integer.toString(SupervisorProcess.freePort()));
    config = new ConfigLoader().load(null, env);
    keys = Keys.of(config);
    queue = DelayQueue.connect(config);
    sup = SupervisorProcess.start(home, """
        worker:
          processes: 1
          threads: 3
          prefetch: 1
          pollTimeout: 500ms
          drainTimeout: 5s
        supervisor:
          stopTimeout: 10s
        """ + SupervisorProcess.LEAN_JVMS, env);
    sup.awaitRunning(2);
  }

  @AfterAll
  static void stop() throws Exception {
    if (sup != null) {
      sup.close();
    }
    if (queue != null) {
      queue.close();
    }
  }

  @Test
  @Order(1)
  void jobsRunInDueOrderAndTheCliCancelsAndChecksOnEveryShard() throws Exception {
    Runs runs = new Runs(home.resolve("order-runs.log"));
    String payload = "{\"log\":\"" + runs.path() + "\"}";
    // the CLI's calls first: each starts a JVM, which on 2 cores would make the due jobs below
    // late by more than their 1 s spacing
    Cli viaCli = delayq("enqueue", "--type", "test_sleep", "--payload", payload, "--delay", "0s", "--id", "cli-1");
    assertEquals(0, viaCli.code, viaCli.output);
    assertEquals(0, delayq("enqueue", "--type", "test_sleep", "--payload", payload, "--delay", "1h",
        "--id", "later").code);
    Cli cancel = delayq("cancel", "later");
    assertEquals(0, cancel.code, cancel.output);
    // enqueued at once, due in the reverse order; ids in different shards
    for (int i = 1; i <= 3; i++) {
      queue.delay("test_sleep", runs.payload(0), Duration.ofMillis(4000 - i * 1000), JobOptions.withId("due-" + i));
    }
    Set<Integer> shards = new HashSet<>();
    for (int i = 1; i <= 3; i++) {
      shards.add(keys.shardIndexOf("due-" + i));
    }

    await().atMost(Duration.ofSeconds(20)).until(() -> runs.all().stream().filter(r -> r.what().equals("end")).count() == 4);
    List<String> startOrder = runs.all().stream().filter(r -> r.what().equals("start") && r.id().startsWith("due-"))
        .map(Runs.Run::id).toList();
    assertEquals(List.of("due-3", "due-2", "due-1"), startOrder, "due order over shards " + shards);
    Cli check = delayq("check");
    assertEquals(0, check.code, check.output);
    assertTrue(check.output.startsWith("ok"), check.output);
    Cli stats = delayq("stats", "--json");
    assertEquals(0, stats.code, stats.output);
  }

  @Test
  @Order(2)
  void aKilledWorkerHasTheJobItRanInEachShardChargedAndNothingElse() throws Exception {
    Runs runs = new Runs(home.resolve("kill-runs.log"));
    // one long job per shard, each taken by one of the worker's three consumers
    List<String> first = idsOnePerShard("kill-a-");
    for (String id : first) {
      queue.delay("test_sleep", runs.payload(3000), Duration.ZERO, JobOptions.withId(id));
    }
    await().atMost(Duration.ofSeconds(15)).until(() -> first.stream().allMatch(id -> !runs.of("start", id).isEmpty()));
    // and one per shard that waits in ready, not started
    List<String> waiting = idsOnePerShard("kill-b-");
    for (String id : waiting) {
      queue.delay("test_sleep", runs.payload(100), Duration.ZERO, JobOptions.withId(id));
    }
    long victim = runs.of("start", first.get(0)).get(0).pid();

    ProcessHandle.of(victim).orElseThrow().destroyForcibly();

    await().atMost(Duration.ofSeconds(40)).until(() -> concat(first, waiting).stream()
        .allMatch(id -> !runs.of("end", id).isEmpty()));
    for (String id : first) {
      List<Runs.Run> starts = runs.of("start", id);
      assertEquals(List.of(1, 2), starts.stream().map(Runs.Run::attempt).toList(),
          id + " (shard " + keys.shardIndexOf(id) + ") was running: charged one attempt");
      assertNotEquals(victim, starts.get(1).pid());
      assertEquals(1, runs.of("end", id).size());
    }
    for (String id : waiting) {
      assertEquals(List.of(1), runs.of("start", id).stream().map(Runs.Run::attempt).toList(),
          id + " had not started: uncharged");
    }
    // the supervisor took back the three running jobs at once, one in each shard
    String out = sup.output();
    assertTrue(out.contains("3 in-flight job(s) back: 0 unstarted, uncounted; 3 that was running charged"), out);
  }

  @Test
  @Order(3)
  void reshardingAShardsSlotDuringADrainLosesAndRepeatsNoJob() throws Exception {
    Runs runs = new Runs(home.resolve("reshard-runs.log"));
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      jobs.add(JobRequest.delay("test_sleep", runs.payload(0), Duration.ofMillis(i)));
    }
    Set<String> ids = new HashSet<>();
    for (EnqueueResult r : queue.enqueueAll(jobs)) {
      ids.add(r.id());
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> ended(runs) > 300);
    int slot = JedisClusterCRC16.getSlot(keys.shard(0).jobs());
    int from = cluster.ownerOf(slot).getPort();
    int to = cluster.masters().stream().mapToInt(m -> m.port()).filter(p -> p != from).findFirst().orElseThrow();

    cluster.moveSlot(slot, to);
    int endedAtMove = ended(runs);

    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> ended(runs) >= ids.size());
    Map<String, Integer> starts = new HashMap<>();
    Map<String, Integer> ends = new HashMap<>();
    for (Runs.Run r : runs.all()) {
      (r.what().equals("start") ? starts : ends).merge(r.id(), 1, Integer::sum);
    }
    assertEquals(ids, ends.keySet(), "every job ran to its end");
    assertTrue(ends.values().stream().allMatch(n -> n == 1), "none ended twice");
    assertTrue(starts.values().stream().allMatch(n -> n == 1), "none started twice");
    assertEquals(to, cluster.ownerOf(slot).getPort());
    Cli check = delayq("check");
    assertEquals(0, check.code, check.output);
    System.out.printf("reshard of shard 0's slot %d from :%d to :%d during a drain of %d jobs (%d done "
        + "when it ended): none lost, none twice%n", slot, from, to, ids.size(), endedAtMove);
  }

  @Test
  @Order(4)
  void theCliRefusesAClusterNodeAsAPlainUrlAndAnotherShardCountNamingTheSetting() throws Exception {
    Map<String, String> plain = Map.of("DELAYQ_REDIS_URL", "redis://127.0.0.1:" + cluster.masters().get(0).port(),
        "DELAYQ_QUEUE", env.get("DELAYQ_QUEUE"));
    Cli onNode = delayq(plain, "stats");
    assertEquals(3, onNode.code, onNode.output);
    assertTrue(onNode.output.contains("is a Redis Cluster node") && onNode.output.contains("redis.cluster"),
        onNode.output);

    Map<String, String> oneShard = new HashMap<>(env);
    oneShard.put("DELAYQ_QUEUE_SHARDS", "1");
    Cli changed = delayq(oneShard, "stats");
    assertEquals(2, changed.code, changed.output);
    assertTrue(changed.output.contains("queue.shards is 1") && changed.output.contains("created with 3"),
        changed.output);
  }

  private static int ended(Runs runs) {
    return (int) runs.all().stream().filter(r -> r.what().equals("end")).count();
  }

  private static List<String> idsOnePerShard(String prefix) {
    Map<Integer, String> byShard = new HashMap<>();
    for (int i = 0; byShard.size() < SHARDS; i++) {
      byShard.putIfAbsent(keys.shardIndexOf(prefix + i), prefix + i);
    }
    return new ArrayList<>(byShard.values());
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private record Cli(int code, String output) {}

  /** {@code bin/delayq ARGS} as its own JVM, on the same DELAYQ_* variables as the supervisor. */
  private static Cli delayq(String... args) throws Exception {
    return delayq(env, args);
  }

  private static Cli delayq(Map<String, String> env, String... args) throws Exception {
    SupervisorProcess.CliResult r = SupervisorProcess.delayq(home, env, args);
    return new Cli(r.code(), r.output());
  }
}
