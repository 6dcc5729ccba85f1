package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.JobRequest;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.worker.Worker;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker that lacks a job type's handler leaves its jobs, uncharged, to a worker that has it:
 * a rolling deploy that adds a type (old worker JVMs running while the new type's jobs fall due,
 * then a worker whose jobs directory holds the type's jar), and supervised-style worker JVMs
 * beside an in-app worker that alone knows a type. Every run is counted in a ledger outside the
 * queue: none lost, none twice, none charged an attempt, none dead.
 */
class MissingHandlerTest {
  private static final String PROBE = "test_probe";

  private QueueUnderTest q;
  private JvmProcesses processes;

  @TempDir
  Path tmp;

  @BeforeEach
  void start(TestInfo info) {
    q = new QueueUnderTest();
    processes = q.processes("missingHandler-" + info.getTestMethod().orElseThrow().getName())
        .with("DELAYQ_WORKER_THREADS", "4")
        .with("DELAYQ_WORKER_HEARTBEAT_INTERVAL", "1s");
  }

  @AfterEach
  void stop() throws InterruptedException {
    processes.close();
  }

  @Test
  void aRollingDeployThatAddsATypeRunsEachOfItsJobsOnceUnchargedOnTheNewWorker() throws IOException {
    processes.scheduler("scheduler");
    processes.worker("old-1");
    processes.worker("old-2");
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      jobs.add(JobRequest.delay(PROBE, q.payload(), Duration.ofMillis(i)));
    }
    Set<String> ids = new HashSet<>();
    q.producer.enqueueAll(jobs).forEach(r -> ids.add(r.id()));
    assertEquals(1000, ids.size());

    // the old workers claim every one of them, and none is dead or charged: all wait for a handler
    await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200))
        .until(() -> waiting() == 1000);
    assertEquals(0, q.inspector.depths().dead(), "none dead on a worker without the handler");
    for (String id : ids) {
      assertEquals("1", q.recordField(id, "attempt"), id + ": no attempt counted");
    }
    assertEquals(List.of(), q.invariant.breaches(), "each waiting job is in exactly one place");
    assertEquals(0, q.log.size(), "nothing ran");

    // the new version: the same worker with the type's jar in its jobs directory
    Path jobsDir = Files.createDirectories(tmp.resolve("jobs"));
    writeServiceJar(jobsDir.resolve("probe.jar"), "dev.delayq.e2e.handlers.ProbeHandler");
    long startedAt = System.nanoTime();
    Process fresh = processes.with("DELAYQ_WORKER_JOBS_DIR", jobsDir.toString()).worker("new-1");

    await().atMost(90, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(100))
        .until(() -> q.inspector.depths().records() == 0);
    System.out.printf("the 1000 waiting jobs ran %d ms after the worker with their handler was started%n",
        (System.nanoTime() - startedAt) / 1_000_000);

    Map<String, List<RunLog.Run>> runs = q.log.byId();
    assertEquals(ids, runs.keySet(), "every job ran: lost 0");
    runs.forEach((id, r) -> {
      assertEquals(1, r.size(), id + " ran exactly once");
      assertEquals(1, r.get(0).attempt(), id + " ran at its first attempt: uncharged");
      assertEquals(fresh.pid(), r.get(0).pid(), id + " ran on the worker that has its handler");
    });
    assertEquals(0, q.inspector.depths().dead());
    assertEquals(Map.of(), q.inspector.flow().waitingForHandler());
    assertEquals(List.of(), q.invariant.breaches());
  }

  @Test
  void besideWorkerJvmsAnInAppWorkerThatAloneKnowsATypeRunsAllOfItsJobs() throws Exception {
    processes.scheduler("scheduler");
    processes.worker("worker-1");
    processes.worker("worker-2");
    Map<String, List<Integer>> ranInApp = new ConcurrentHashMap<>();
    JobHandler appOnly = new JobHandler() {
      @Override
      public String type() {
        return PROBE;
      }

      @Override
      public JobResult handle(JobContext ctx) {
        ranInApp.computeIfAbsent(ctx.id(), k -> java.util.Collections.synchronizedList(new ArrayList<>()))
            .add(ctx.attempt());
        return JobResult.done();
      }
    };
    DelayqConfig config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", q.redis.url(),
        "DELAYQ_QUEUE", q.queue, "DELAYQ_WORKER_THREADS", "2", "DELAYQ_WORKER_POLL_TIMEOUT", "200ms",
        "DELAYQ_WORKER_HEARTBEAT_INTERVAL", "1s"));
    try (RedisConnection redis = RedisConnector.connect(config, "in-app-test", 4)) {
      Worker app = Worker.inApp(config, redis, List.of(appOnly));
      app.start();
      try {
        List<JobRequest> jobs = new ArrayList<>();
        List<JobRequest> others = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
          jobs.add(JobRequest.delay(PROBE, "{}", Duration.ofMillis(5L * i)));
          others.add(JobRequest.delay("test_record", q.payload(), Duration.ofMillis(5L * i)));
        }
        Set<String> ids = new HashSet<>();
        q.producer.enqueueAll(jobs).forEach(r -> ids.add(r.id()));
        q.producer.enqueueAll(others);

        await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200))
            .until(() -> q.inspector.depths().records() == 0);

        assertEquals(ids, ranInApp.keySet(), "every job of the app's type ran in the app: lost 0");
        ranInApp.forEach((id, attempts) -> assertEquals(List.of(1), attempts, id + ": once, uncharged"));
        assertEquals(200, q.log.size(), "the worker JVMs' own type ran there, beside");
        assertEquals(0, q.inspector.depths().dead(), "none dead");
        assertEquals(List.of(), q.invariant.breaches());
      } finally {
        app.close();
      }
    }
  }

  @Test
  void aJobOfATypeNoWorkerHasIsCountedAsWaitingThenGoesToDeadAfterTheHandlerWaitWithTheReason() {
    processes.with("DELAYQ_QUEUE_HANDLER_WAIT", "3s").scheduler("scheduler");
    processes.worker("worker-1");
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      jobs.add(JobRequest.delay(PROBE, q.payload(), Duration.ZERO));
    }
    Set<String> ids = new HashSet<>();
    q.producer.enqueueAll(jobs).forEach(r -> ids.add(r.id()));
    long enqueuedAt = System.currentTimeMillis();

    await().atMost(10, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(50)).until(() -> waiting() == 5);
    assertEquals(Map.of(PROBE, 5L), q.inspector.flow().waitingForHandler(), "counted as waiting, per type");
    assertEquals(0, q.inspector.depths().dead(), "not dead before queue.handlerWait");

    await().atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(100))
        .until(() -> q.inspector.depths().dead() == 5);
    assertTrue(System.currentTimeMillis() - enqueuedAt >= 3000, "not before queue.handlerWait");
    for (String id : ids) {
      assertEquals("no live worker had a handler for type 'test_probe' for 3s", q.recordField(id, "lastError"));
      assertEquals("1", q.recordField(id, "attempt"), id + ": never charged");
    }
    assertEquals(Map.of(), q.inspector.flow().waitingForHandler());
    assertEquals(0, q.log.size(), "nothing ran");
    assertEquals(List.of(), q.invariant.breaches());
  }

  private long waiting() {
    return q.inspector.flow().waitingForHandlerTotal();
  }

  /** A jar holding only a service file that names {@code handlerClass} (on the workers' classpath). */
  private static void writeServiceJar(Path jar, String handlerClass) throws IOException {
    try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
      out.putNextEntry(new JarEntry("META-INF/services/dev.delayq.job.JobHandler"));
      out.write((handlerClass + "\n").getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
  }
}
