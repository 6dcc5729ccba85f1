package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisCluster;
import dev.delayq.redisserver.RedisServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A real supervisor, its scheduler and a worker of four threads on a queue of three shards over a
 * real Redis Cluster of three masters (no replicas, node timeout 5 s: nothing fails over), whose
 * master of shard 0 hangs for 4 s (SIGSTOP: it neither answers nor refuses, as behind a partition
 * that drops packets) while jobs of every shard fall due. The jobs of shards 1 and 2 due during
 * the hang (sparser than the workers' poll timeout, so that idle consumers scan the shards too)
 * must run within about a second of due; after SIGCONT every job runs, each exactly once
 * (a ledger of starts and ends: lost 0, ran twice 0).
 */
class ShardMasterHungProcessTest {
  private static final int SHARDS = 3;
  private static final int PER_SHARD = 9;
  private static final long HANG_MS = 4000;
  private static final long LATE_BOUND_MS = 1000;

  @TempDir
  Path home;
  RedisCluster cluster;
  RedisServer hung;
  SupervisorProcess sup;
  DelayQueue queue;
  Keys keys;
  Runs runs;

  @AfterEach
  void stop() throws Exception {
    if (hung != null) {
      signal("CONT", hung);
    }
    if (sup != null) {
      sup.close();
    }
    if (queue != null) {
      queue.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static void signal(String signal, RedisServer node) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-" + signal, Long.toString(node.pid())).inheritIO().start().waitFor();
  }

  @Test
  void theOtherShardsJobsRunOnTimeWhileOneShardsMasterHangsAndEveryJobRunsOnce() throws Exception {
    startOnCluster(Map.of());

    // jobs due every 600 ms from 300 ms after the stop to 5.1 s after it, in every shard: sparser
    // than the poll timeout (500 ms), so that idle consumers also claim by their scan over the
    // shards, not only where the watch sends them
    long stopAt = System.currentTimeMillis() + 1500;
    Map<String, Long> dueAt = new HashMap<>();
    List<JobRequest> jobs = new ArrayList<>();
    int[] perShard = new int[SHARDS];
    for (int n = 0; jobs.size() < SHARDS * PER_SHARD; n++) {
      String id = "job-" + n;
      int shard = keys.shardIndexOf(id);
      if (perShard[shard] == PER_SHARD) {
        continue;
      }
      long due = stopAt + 300 + 600L * perShard[shard]++;
      jobs.add(JobRequest.at("test_timed", runs.payload(0), Instant.ofEpochMilli(due)).with(JobOptions.withId(id)));
      dueAt.put(id, due);
    }
    queue.enqueueAll(jobs);

    hung = cluster.node(cluster.ownerOf(JedisClusterCRC16.getSlot(keys.shard(0).ready())).getPort());
    Thread.sleep(Math.max(0, stopAt - System.currentTimeMillis()));
    long stoppedAt = System.currentTimeMillis();
    signal("STOP", hung);
    Thread.sleep(HANG_MS);
    signal("CONT", hung);
    long contAt = System.currentTimeMillis();
    hung = null;

    Set<String> ids = new HashSet<>(dueAt.keySet());
    try {
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() -> ended(runs).containsAll(ids));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      Set<String> missing = new HashSet<>(ids);
      missing.removeAll(ended(runs));
      throw new AssertionError(missing.size() + " of " + ids.size() + " jobs never ended; worker log:\n"
          + sup.log("worker-1"), e);
    }
    Map<String, Integer> starts = new HashMap<>();
    Map<String, Long> firstStart = new HashMap<>();
    Map<String, Integer> ends = new HashMap<>();
    for (Runs.Run r : runs.all()) {
      if (r.what().equals("start")) {
        starts.merge(r.id(), 1, Integer::sum);
        firstStart.merge(r.id(), r.atMs(), Math::min);
      } else {
        ends.merge(r.id(), 1, Integer::sum);
      }
    }
    Map<String, Integer> twice = new TreeMap<>();
    starts.forEach((id, n) -> {
      if (n > 1 && ids.contains(id)) {
        twice.put(id, n);
      }
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
      long lateMs = firstStart.get(e.getKey()) - due;
      latest = Math.max(latest, lateMs);
      if (lateMs > LATE_BOUND_MS) {
        late.add(e.getKey() + " (shard " + keys.shardIndexOf(e.getKey()) + ") " + lateMs + " ms late");
      }
    }
    System.out.printf("shard 0's master hung for %d ms; %d jobs of shards 1 and 2 due meanwhile, the latest started"
        + " %d ms after due; lost %d, ran twice %d%n", contAt - stoppedAt, dueWhileHung, latest,
        ids.size() - ends.keySet().stream().filter(ids::contains).count(), twice.size());
    sup.log("worker-1").lines().filter(l -> l.contains("WARN") || l.contains("ERROR"))
        .map(l -> l.length() > 240 ? l.substring(0, 240) : l).limit(20).forEach(l -> System.out.println("worker-1: " + l));
    assertTrue(dueWhileHung >= 10, "jobs of the healthy shards fell due while shard 0's master hung: " + dueWhileHung);
    assertEquals(List.of(), late, "jobs of the healthy shards due while shard 0's master hung ("
        + (contAt - stoppedAt) + " ms) started within " + LATE_BOUND_MS + " ms of due");
    assertEquals(Map.of(), twice, "ran twice");
    for (String id : ids) {
      assertEquals(1, ends.getOrDefault(id, 0), id + " ended once");
    }
  }

  /**
   * Jobs of shards 1 and 2 that run across the hang (3.5 s each, started just before it), with a
   * heartbeat TTL of 2 s, shorter than the hang: their consumers must keep beating in shards 1 and
   * 2, or the scheduler takes their running jobs back and they run twice. Every job runs once.
   */
  @Test
  void jobsOfTheOtherShardsRunningAcrossTheHangAreNotTakenBack() throws Exception {
    startOnCluster(Map.of("DELAYQ_WORKER_HEARTBEAT_INTERVAL", "300ms", "DELAYQ_WORKER_HEARTBEAT_TTL", "2s"));
    long stopAt = System.currentTimeMillis() + 1500;
    Set<String> ids = new HashSet<>();
    List<JobRequest> jobs = new ArrayList<>();
    int[] perShard = new int[SHARDS];
    for (int n = 0; jobs.size() < SHARDS - 1; n++) {
      String id = "long-" + n;
      int shard = keys.shardIndexOf(id);
      if (shard == 0 || perShard[shard] == 1) {
        continue; // (none in shard 0: a job whose own master hangs past the TTL is taken back when it answers)
      }
      perShard[shard]++;
      jobs.add(JobRequest.at("test_timed", runs.payload(3500), Instant.ofEpochMilli(stopAt - 400))
          .with(JobOptions.withId(id)));
      ids.add(id);
    }
    queue.enqueueAll(jobs);
    hung = cluster.node(cluster.ownerOf(JedisClusterCRC16.getSlot(keys.shard(0).ready())).getPort());
    Thread.sleep(Math.max(0, stopAt - System.currentTimeMillis()));
    long stoppedAt = System.currentTimeMillis();
    signal("STOP", hung);
    Thread.sleep(HANG_MS);
    signal("CONT", hung);
    long contAt = System.currentTimeMillis();
    hung = null;

    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() -> ended(runs).containsAll(ids));
    Thread.sleep(3000); // a job taken back after its end would start again by now
    Map<String, Integer> starts = new TreeMap<>();
    Map<String, Long> firstStart = new HashMap<>();
    for (Runs.Run r : runs.all()) {
      if (r.what().equals("start") && ids.contains(r.id())) {
        starts.merge(r.id(), 1, Integer::sum);
        firstStart.merge(r.id(), r.atMs(), Math::min);
      }
    }
    Map<String, Integer> twice = new TreeMap<>();
    starts.forEach((id, n) -> {
      if (n > 1) {
        twice.put(id, n);
      }
    });
    System.out.printf("shard 0's master hung for %d ms; %d jobs of shards 1 and 2 running across it; ran twice %d%n",
        contAt - stoppedAt, ids.size(), twice.size());
    sup.log("worker-1").lines().filter(l -> l.contains("WARN") || l.contains("ERROR"))
        .map(l -> l.length() > 240 ? l.substring(0, 240) : l).limit(20).forEach(l -> System.out.println("worker-1: " + l));
    sup.log("scheduler").lines().filter(l -> l.contains("recovered"))
        .map(l -> l.length() > 240 ? l.substring(0, 240) : l).limit(20).forEach(l -> System.out.println("scheduler: " + l));
    for (String id : ids) {
      assertTrue(firstStart.get(id) < stoppedAt + 300, id + " started before the hang (at "
          + (firstStart.get(id) - stoppedAt) + " ms from it)");
    }
    assertEquals(Map.of(), twice, "ran twice");
  }

  /**
   * A cluster of three masters, the supervisor (one worker of four threads, {@code settings}
   * besides) on a queue of three shards over it, and one job run in every shard: scheduler and
   * worker are at work on every shard.
   */
  private void startOnCluster(Map<String, String> settings) throws Exception {
    SupervisorProcess.requireChildJars();
    JobsJar.install(home);
    cluster = RedisCluster.start();
    for (RedisServer node : cluster.nodes()) {
      try (Jedis j = new Jedis("127.0.0.1", node.port())) {
        // should the others count the hung node as failed, they still serve their own slots
        j.configSet("cluster-require-full-coverage", "no");
      }
    }
    Map<String, String> env = new HashMap<>();
    env.put("DELAYQ_REDIS_CLUSTER", cluster.seeds());
    env.put("DELAYQ_QUEUE", cluster.queueSpreadOverMasters(SHARDS, false));
    env.put("DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS));
    env.put("DELAYQ_WEB_PORT", Integer.toString(SupervisorProcess.freePort()));
    env.putAll(settings);
    DelayqConfig config = new ConfigLoader().load(null, env);
    keys = Keys.of(config);
    queue = DelayQueue.connect(config);
    sup = SupervisorProcess.start(home, SupervisorProcess.quickWorkers(1, 4), env);
    sup.awaitRunning(2);
    runs = new Runs(home.resolve("hung-runs.log"));
    // one job per shard first: scheduler and worker are at work on every shard before the hang
    Set<String> warm = new HashSet<>();
    for (int n = 0; warm.size() < SHARDS; n++) {
      String id = "warm-" + n;
      if (warm.stream().noneMatch(w -> keys.shardIndexOf(w) == keys.shardIndexOf(id))) {
        warm.add(id);
        queue.delay("test_timed", runs.payload(0), Duration.ZERO, JobOptions.withId(id));
      }
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> ended(runs).containsAll(warm));
  }

  private static Set<String> ended(Runs runs) {
    Set<String> out = new HashSet<>();
    for (Runs.Run r : runs.all()) {
      if (r.what().equals("end")) {
        out.add(r.id());
      }
    }
    return out;
  }
}
