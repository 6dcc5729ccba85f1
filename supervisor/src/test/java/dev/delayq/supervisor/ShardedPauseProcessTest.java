package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.JobRequest;
import dev.delayq.cli.DelayqLauncher;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;

/**
 * The pause of a whole queue of three shards (on one plain Redis) with the real supervisor and a
 * worker of four consumers: while paused none of 300 jobs due in every shard starts, all are held
 * in their shards; resumed with bin/delayq, each runs once (the ledger of runs counts it).
 */
class ShardedPauseProcessTest {
  private static final int SHARDS = 3;
  private static final int JOBS = 300;
  private static final String CONFIG = """
      worker:
        processes: 1
        threads: 4
        pollTimeout: 500ms
        drainTimeout: 5s
      supervisor:
        stopTimeout: 10s
      """ + SupervisorProcess.LEAN_JVMS;

  @TempDir
  Path home;
  @TempDir
  Path install;

  @BeforeAll
  static void childJarsAreBuilt() {
    SupervisorProcess.requireChildJars();
  }

  @Test
  void aPausedShardedQueueStartsNoJobInAnyShardAndResumedEachRunsOnce() throws Exception {
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    env.put("DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS));
    String queue = env.get("DELAYQ_QUEUE");
    DelayqConfig config = new ConfigLoader().load(null, env);
    Keys keys = Keys.of(config);
    UnifiedJedis redis = RedisFixture.get().redis();
    Inspector inspector = new Inspector(redis, keys);
    InvariantCheck invariant = new InvariantCheck(redis, keys);
    Runs runs = new Runs(home.resolve("runs.log"));
    DelayqLauncher cli = DelayqLauncher.in(install);
    Map<String, String> cliEnv = Map.of("DELAYQ_REDIS_URL", env.get("DELAYQ_REDIS_URL"), "DELAYQ_QUEUE", queue,
        "DELAYQ_QUEUE_SHARDS", Integer.toString(SHARDS));

    try (SupervisorProcess sup = SupervisorProcess.start(home, CONFIG, env);
        DelayQueue producer = DelayQueue.connect(config)) {
      sup.awaitRunning(2);
      DelayqLauncher.Run paused = cli.run(cliEnv, "pause", queue);
      assertEquals(0, paused.exit(), paused.toString());
      assertEquals("paused queue " + queue, paused.out().strip());

      List<JobRequest> jobs = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        jobs.add(JobRequest.delay("test_sleep", runs.payload(0), Duration.ofMillis(i % 200)));
      }
      Set<Integer> shards = new HashSet<>();
      for (EnqueueResult r : producer.enqueueAll(jobs)) {
        shards.add(keys.shardIndexOf(r.id()));
      }
      assertEquals(Set.of(0, 1, 2), shards, "jobs in every shard");
      long enqueued = System.currentTimeMillis();

      await().atMost(Duration.ofSeconds(30)).until(() -> inspector.flow().heldTotal() == JOBS);
      Thread.sleep(Math.max(0, enqueued + 3_000 - System.currentTimeMillis()));
      assertEquals(List.of(), runs.all(), "3 s on, no job started in any shard");
      for (Keys shard : keys.allShards()) {
        assertTrue(redis.llen(shard.held("test_sleep")) > 0, "shard " + shard.shard() + " holds its own");
      }
      DelayqLauncher.Run stats = cli.run(cliEnv, "stats");
      assertTrue(stats.out().contains("queue paused since") && stats.out().contains("test_sleep holds " + JOBS),
          stats.toString());
      assertEquals(List.of(), invariant.breaches(), "held jobs are in their place, each in its shard");

      DelayqLauncher.Run resumed = cli.run(cliEnv, "resume", queue);
      assertEquals(0, resumed.exit(), resumed.toString());
      assertEquals("resumed queue " + queue + "; " + JOBS + " held job(s) back to ready", resumed.out().strip());

      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
          .until(() -> inspector.depths().records() == 0
              && runs.all().stream().filter(r -> r.what().equals("end")).count() >= JOBS);
      Thread.sleep(500); // a second run, were there one, would show by now
      Map<String, List<Integer>> starts = runs.startedAttempts(Set.of());
      assertEquals(JOBS, starts.size(), "lost 0");
      starts.forEach((id, attempts) -> assertEquals(List.of(1), attempts, id + " ran " + attempts));
      assertEquals(List.of(), invariant.breaches());
      assertEquals(0, inspector.depths().dead());
    }
  }
}
