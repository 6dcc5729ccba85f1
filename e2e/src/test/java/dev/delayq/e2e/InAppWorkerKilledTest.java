package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.scheduler.Scheduler;
import dev.delayq.testing.RedisFixture;
import dev.delayq.worker.Worker;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * An app whose in-app worker holds jobs is killed with -9: no supervisor takes its jobs back at
 * once, so the in-app scheduler's recoverer does, once the dead consumers' heartbeat expires
 * ({@code worker.heartbeatTtl} after their last heartbeat, which came at most
 * {@code worker.heartbeatInterval} before the kill). Lost 0; each runs again once, elsewhere.
 */
class InAppWorkerKilledTest {
  private static final String TYPE = "held_by_killed_app";
  private static final int JOBS = 4;
  /**
   * Shorter than the shipped 30 s / 5 s so the test is quick; the delay scales with them
   * ({@code -Ddelayq.test.heartbeatTtlSeconds=30 -Ddelayq.test.heartbeatIntervalSeconds=5} measures the shipped ones).
   */
  private static final Duration HEARTBEAT_TTL = Duration.ofSeconds(
      Long.parseLong(System.getProperty("delayq.test.heartbeatTtlSeconds", "10")));
  private static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(
      Long.parseLong(System.getProperty("delayq.test.heartbeatIntervalSeconds", "2")));

  @Test
  void aKilledAppsJobsRunElsewhereOnceTheirHeartbeatExpiresNoneLost() throws Exception {
    String queue = RedisFixture.freshQueue();
    Map<String, String> env = new HashMap<>(Map.of("DELAYQ_REDIS_URL", RedisFixture.get().url(),
        "DELAYQ_QUEUE", queue, "DELAYQ_WORKER_THREADS", Integer.toString(JOBS),
        "DELAYQ_WORKER_PREFETCH", "1", "DELAYQ_WORKER_POLL_TIMEOUT", "200ms",
        "DELAYQ_WORKER_HEARTBEAT_TTL", HEARTBEAT_TTL.toSeconds() + "s",
        "DELAYQ_WORKER_HEARTBEAT_INTERVAL", HEARTBEAT_INTERVAL.toSeconds() + "s"));
    DelayqConfig config = new ConfigLoader().load(null, env);
    Keys keys = new Keys("delayq", queue);
    DelayQueue producer = new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5);
    Map<String, Integer> ranElsewhere = new ConcurrentHashMap<>();
    Map<String, Integer> attempts = new ConcurrentHashMap<>();

    try (Scheduler scheduler = Scheduler.inApp(config)) {
      ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
          "-cp", System.getProperty("java.class.path"), HoldingWorkerApp.class.getName(), TYPE)
          .redirectErrorStream(true);
      pb.environment().keySet().removeIf(k -> k.startsWith("DELAYQ_"));
      pb.environment().putAll(env);
      Process app = pb.start();
      Set<String> ids = new HashSet<>();
      Set<String> startedInApp = ConcurrentHashMap.newKeySet();
      Thread reader = new Thread(() -> {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(),
            StandardCharsets.UTF_8))) {
          for (String line; (line = out.readLine()) != null; ) {
            if (line.startsWith("started ")) {
              startedInApp.add(line.substring("started ".length()).strip());
            }
          }
        } catch (java.io.IOException ignored) {
          // the app is gone
        }
      });
      reader.setDaemon(true);
      reader.start();
      try {
        for (int i = 0; i < JOBS; i++) {
          ids.add(producer.delay(TYPE, Map.of("n", i), Duration.ofMillis(200)).id());
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> startedInApp.size() == JOBS);
      } finally {
        app.destroyForcibly(); // SIGKILL: no drain, no give-back
      }
      app.waitFor();
      long killedNanos = System.nanoTime();
      long[] lastStartNanos = {0};
      JobHandler ledger = new JobHandler() {
        @Override
        public String type() {
          return TYPE;
        }

        @Override
        public JobResult handle(JobContext ctx) {
          ranElsewhere.merge(ctx.id(), 1, Integer::sum);
          attempts.put(ctx.id(), ctx.attempt());
          synchronized (lastStartNanos) {
            lastStartNanos[0] = Math.max(lastStartNanos[0], System.nanoTime());
          }
          return JobResult.done();
        }
      };
      try (RedisConnection redis = RedisConnector.connect(config, "survivor", JOBS + 4);
          Worker survivor = Worker.inApp(config, redis, List.of(ledger))) {
        survivor.start();
        await().atMost(HEARTBEAT_TTL.multipliedBy(3)).until(() -> ranElsewhere.size() == JOBS);
      }
      long delayMs = (lastStartNanos[0] - killedNanos) / 1_000_000;
      System.out.println("in-app worker killed with -9: its " + JOBS + " jobs ran elsewhere " + delayMs
          + " ms later (worker.heartbeatTtl " + HEARTBEAT_TTL.toMillis() + " ms, heartbeatInterval "
          + HEARTBEAT_INTERVAL.toMillis() + " ms, scheduler.recoverInterval "
          + config.scheduler().recoverInterval().toMillis() + " ms)");

      assertEquals(startedInApp, ids, "the killed app held every job");
      assertEquals(ids, ranElsewhere.keySet(), "lost 0");
      ranElsewhere.forEach((id, n) -> assertEquals(1, n, id + " ran once elsewhere"));
      attempts.forEach((id, a) -> assertEquals(2, a, id + ": the killed run was charged an attempt"));
      long earliest = HEARTBEAT_TTL.minus(HEARTBEAT_INTERVAL).toMillis() - 500;
      long latest = HEARTBEAT_TTL.plus(config.scheduler().recoverInterval()).toMillis() + 3_000;
      assertTrue(delayMs >= earliest && delayMs <= latest, "taken back " + delayMs + " ms after the kill, expected "
          + earliest + ".." + latest);
    }
  }
}
