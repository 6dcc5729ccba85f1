package dev.delayq.scheduler;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.config.ConfigLoader;
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
 * cluster: they share the shards (neither stands by), and when one is killed with SIGKILL the
 * other takes its shards once their leases expire and forwards every job, none lost and none
 * forwarded twice.
 */
class SharedShardsProcessTest {
  private static final int SHARDS = 3;
  private static final long LEASE_TTL_MS = 2000;

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
    List<RedisBroker.NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      String id = "j" + i;
      ids.add(id);
      jobs.add(new RedisBroker.NewJob(id, "{\"type\":\"t\",\"maxAttempts\":5", "{}", 500 + i * 15L, false));
    }
    broker.enqueueAll(jobs);
    Thread.sleep(800);
    a.destroyForcibly().waitFor();
    long killedAt = System.nanoTime();

    await().atMost(Duration.ofMillis(LEASE_TTL_MS * 3)).pollInterval(Duration.ofMillis(50))
        .until(() -> holders().values().stream().filter(h -> h.startsWith("sched-b")).count() == SHARDS);
    double takeover = (System.nanoTime() - killedAt) / 1e9;

    await().atMost(Duration.ofSeconds(20)).until(() -> readyIds().size() >= ids.size());
    List<String> ready = readyIds();
    assertEquals(ids, new HashSet<>(ready), "every job forwarded");
    assertEquals(ids.size(), ready.size(), "none forwarded twice");
    for (Keys shard : keys.allShards()) {
      assertEquals(0L, redis.client().zcard(shard.delayed()));
    }
    assertTrue(b.isAlive());
    System.out.printf("scheduler killed: the other held all %d shards after %.2fs (lease ttl %.1fs)%n",
        SHARDS, takeover, LEASE_TTL_MS / 1000.0);
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
