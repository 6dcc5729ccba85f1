package dev.delayq.schedulerproc;

import dev.delayq.redis.NewJob;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.config.ConfigLoader;
import dev.delayq.redis.DelayedReads;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.testing.RedisCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real scheduler JVMs on a queue of three shards, its shards on the three masters of a real
 * cluster: they share the shards, each the hot standby of the shards the other holds. When one is
 * killed with SIGKILL the other forwards the dead one's due jobs at once (overdue by
 * scheduler.standbyGrace, not by the lease TTL), takes its shards once their leases expire, and
 * forwards every job, none lost and none forwarded twice.
 */
class SharedShardsProcessTest {
  private static final int SHARDS = 3;
  /** Long enough that most jobs fall due before the dead scheduler's leases lapse. */
  private static final long LEASE_TTL_MS = 5000;
  /**
   * What a job due after the kill may reach ready late: the grace plus a loaded machine's noise
   * (these polls included), far below the lease, which the jobs would otherwise wait out.
   */
  private static final long BOUND_MS = 1_000;

  @TempDir
  Path dir;

  private final RedisCluster cluster = RedisCluster.shared();
  private final String queue = cluster.queueSpreadOverMasters(SHARDS, false);
  private final Map<String, String> env = new HashMap<>(Map.of(
      "DELAYQ_REDIS_CLUSTER", cluster.seeds(), "DELAYQ_QUEUE", queue,
      "DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS), "DELAYQ_SCHEDULER_LEASE_TTL", LEASE_TTL_MS + "ms"));
  private final RedisConnection redis = RedisConnector.connect(new ConfigLoader().load(null, env), "test", 4);
  private final Keys keys = Keys.sharded("delayq", queue, SHARDS);
  private final RedisBroker broker = new RedisBroker(redis, keys);
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void stop() {
    started.forEach(Process::destroyForcibly);
    redis.close();
  }

  @Test
  void twoSchedulersShareTheShardsAndTheSurvivorOfAKillForwardsEveryJob() throws Exception {
    broker.prepare();
    Process a = scheduler("sched-a");
    await().atMost(Duration.ofSeconds(30)).until(() -> holders().values().stream()
        .filter(h -> h.startsWith("sched-a")).count() == SHARDS);

    Process b = scheduler("sched-b");
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      Map<Integer, String> h = holders();
      long ofA = h.values().stream().filter(x -> x.startsWith("sched-a")).count();
      long ofB = h.values().stream().filter(x -> x.startsWith("sched-b")).count();
      return ofA >= 1 && ofB >= 1 && ofA + ofB == SHARDS;
    });

    // jobs due over the next seconds in every shard, while one scheduler is killed
    Set<String> ids = new HashSet<>();
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      String id = "j" + i;
      ids.add(id);
      jobs.add(new NewJob(id, "{\"type\":\"t\",\"maxAttempts\":5", "{}", 500 + i * 15L, false));
    }
    long enqueuedAt = System.nanoTime();
    broker.enqueueAll(jobs);

    // when each job is first seen in ready, against its due time (500 + 15 i ms after the
    // enqueue), watched from before the kill at 800 ms until the survivor holds every shard
    Map<String, Long> lateMs = new HashMap<>();
    long killedAt = 0;
    double takeover = -1;
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while ((lateMs.size() < ids.size() || takeover < 0) && System.nanoTime() < deadline) {
      long seen = System.nanoTime();
      if (killedAt == 0 && seen - enqueuedAt >= 800_000_000L) {
        a.destroyForcibly(); // SIGKILL; no wait for the exit, which would pause these polls
        killedAt = System.nanoTime();
      }
      for (String id : readyIds()) {
        lateMs.computeIfAbsent(id, x -> (seen - enqueuedAt) / 1_000_000 - (500 + Long.parseLong(x.substring(1)) * 15));
      }
      if (killedAt != 0 && takeover < 0
          && holders().values().stream().filter(h -> h.startsWith("sched-b")).count() == SHARDS) {
        takeover = (seen - killedAt) / 1e9;
      }
      Thread.sleep(10);
    }
    assertTrue(takeover > 0, "the survivor holds every shard in the end");
    List<String> ready = readyIds();
    assertEquals(ids, new HashSet<>(ready), "every job forwarded");
    assertEquals(ids.size(), ready.size(), "none forwarded twice");
    for (Keys shard : keys.allShards()) {
      assertEquals(0L, new DelayedReads(redis.client()).count(shard, "-inf", "+inf"));
    }
    assertTrue(b.isAlive());
    long killedAfterMs = (killedAt - enqueuedAt) / 1_000_000;
    long worst = 0;
    String worstId = "";
    for (Map.Entry<String, Long> e : lateMs.entrySet()) {
      long due = 500 + Long.parseLong(e.getKey().substring(1)) * 15;
      if (due > killedAfterMs && e.getValue() > worst) {
        worst = e.getValue();
        worstId = e.getKey();
      }
    }
    System.out.printf("scheduler killed: the other held all %d shards after %.2fs (lease ttl %.1fs); the jobs due"
        + " since forwarded at most %d ms late (%s, as seen by 10 ms polls)%n", SHARDS, takeover, LEASE_TTL_MS / 1000.0,
        worst, worstId);
    assertTrue(worst <= BOUND_MS, "a job due after the kill reached ready " + worst + " ms late (" + worstId
        + "), as if it waited for the lease (" + LEASE_TTL_MS + " ms) and not only the standby grace");
  }

  private Map<Integer, String> holders() {
    Map<Integer, String> out = new HashMap<>();
    for (Keys shard : keys.allShards()) {
      String h = redis.client().get(shard.leader());
      if (h != null) {
        out.put(shard.shard(), h);
      }
    }
    return out;
  }

  private List<String> readyIds() {
    List<String> all = new ArrayList<>();
    for (Keys shard : keys.allShards()) {
      all.addAll(redis.client().lrange(shard.ready(), 0, -1));
    }
    return all;
  }

  private Process scheduler(String name) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), SchedulerMain.class.getName()));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve(name + ".log").toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("DELAYQ_"));
    pb.environment().putAll(env);
    pb.environment().put("DELAYQ_CHILD_NAME", name);
    Process p = pb.start();
    started.add(p);
    return p;
  }
}
