package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.delayq.DelayQueue;
import dev.delayq.JobRequest;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import dev.delayq.worker.Worker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An app's in-app worker beside the supervisor's workers on one queue, as the README's snippets
 * lead a user to run them, with a job type only the app has a handler for: the supervised workers
 * leave those jobs (status counts them as waiting for a handler) and every one runs in the app,
 * once, at its first attempt; none goes to dead.
 */
class InAppBesideSupervisedProcessTest {
  private static final String APP_ONLY = "test_app_only";
  private static final int JOBS = 200;

  @TempDir
  Path home;

  @BeforeAll
  static void childJarsAreBuilt() {
    SupervisorProcess.requireChildJars();
  }

  @Test
  void aTypeOnlyTheAppHasRunsInTheAppBesideSupervisedWorkersNoneDead() throws Exception {
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    Keys keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    Inspector inspector = new Inspector(RedisFixture.get().redis(), keys);
    InvariantCheck invariant = new InvariantCheck(RedisFixture.get().redis(), keys);
    DelayQueue producer = new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5);
    Map<String, List<Integer>> ranInApp = new ConcurrentHashMap<>();
    JobHandler appOnly = new JobHandler() {
      @Override
      public String type() {
        return APP_ONLY;
      }

      @Override
      public JobResult handle(JobContext ctx) {
        ranInApp.computeIfAbsent(ctx.id(), k -> Collections.synchronizedList(new ArrayList<>())).add(ctx.attempt());
        return JobResult.done();
      }
    };

    try (SupervisorProcess sup = SupervisorProcess.start(home, SupervisorProcess.quickWorkers(2, 2), env)) {
      await().atMost(Duration.ofSeconds(60)).until(() -> RedisFixture.get().redis().zcard(keys.consumers()) == 4);
      List<JobRequest> jobs = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        jobs.add(JobRequest.delay(APP_ONLY, "{}", Duration.ofMillis(5L * i)));
      }
      Set<String> ids = new HashSet<>();
      producer.enqueueAll(jobs).forEach(r -> ids.add(r.id()));

      // before the app is up, the supervised workers leave every one of them: none dead
      await().atMost(Duration.ofSeconds(30)).until(() -> sup.status().map(s ->
          s.path("flow").path("waitingForHandler").path(APP_ONLY).asLong()).orElse(0L) == JOBS);
      assertEquals(0, inspector.depths().dead());

      DelayqConfig config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", env.get("DELAYQ_REDIS_URL"),
          "DELAYQ_QUEUE", env.get("DELAYQ_QUEUE"), "DELAYQ_WORKER_THREADS", "2",
          "DELAYQ_WORKER_POLL_TIMEOUT", "200ms"));
      try (RedisConnection redis = RedisConnector.connect(config, "in-app-beside-test", 4)) {
        Worker app = Worker.inApp(config, redis, List.of(appOnly));
        app.start();
        try {
          await().atMost(Duration.ofSeconds(60)).until(() -> inspector.depths().records() == 0);
        } finally {
          app.close();
        }
      }

      assertEquals(ids, ranInApp.keySet(), "every job of the app's type ran in the app: lost 0");
      ranInApp.forEach((id, attempts) -> assertEquals(List.of(1), attempts, id + ": once, uncharged"));
      assertEquals(0, inspector.depths().dead(), "none dead");
      assertEquals(Map.of(), inspector.flow().waitingForHandler());
      assertEquals(List.of(), invariant.breaches());
    }
  }
}
