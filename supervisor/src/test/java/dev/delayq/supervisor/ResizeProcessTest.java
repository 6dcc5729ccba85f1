package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.JobRequest;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resizes of a real supervisor under load: while a scale-down drains, a scale-up never reuses a
 * name that a draining worker still holds, so no two processes share a name, a log file or a
 * metric label set, and /metrics answers 200 throughout; rapid cycles end with the asked-for
 * count, no worker JVM outside the table, and every job run (a ledger written by the handler).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ResizeProcessTest {
  @TempDir
  static Path home;
  static SupervisorProcess sup;
  static DelayQueue queue;
  static Inspector inspector;
  static InvariantCheck invariant;
  static WebClient web;

  @BeforeAll
  static void startSupervisorWithFourWorkers() throws Exception {
    SupervisorProcess.requireChildJars();
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    Keys keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    queue = new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5);
    inspector = new Inspector(RedisFixture.get().redis(), keys);
    invariant = new InvariantCheck(RedisFixture.get().redis(), keys);
    sup = SupervisorProcess.start(home, """
        worker:
          processes: 4
          threads: 2
          prefetch: 1
          pollTimeout: 250ms
          drainTimeout: 10s
        supervisor:
          stopTimeout: 20s
        """ + SupervisorProcess.LEAN_JVMS, env);
    web = new WebClient(sup.webUrl());
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
        .until(() -> web.up() && running() == 4);
  }

  @AfterAll
  static void stopSupervisor() throws Exception {
    sup.close();
  }

  static long running() {
    return sup.children("worker").stream().filter(c -> c.path("state").asText().equals("RUNNING")).count();
  }

  static List<String> names(JsonNode status) {
    List<String> out = new ArrayList<>();
    status.path("children").forEach(c -> out.add(c.path("name").asText()));
    return out;
  }

  static Set<String> ids(List<EnqueueResult> results) {
    return results.stream().map(EnqueueResult::id).collect(Collectors.toSet());
  }

  static Set<String> ended(Runs runs) {
    return runs.all().stream().filter(r -> r.what().equals("end")).map(Runs.Run::id).collect(Collectors.toSet());
  }

  @Test
  @Order(1)
  void shrinkingAndGrowingAtOnceUnderBusyWorkersNeverSharesANameALogFileOrAMetricSeries() throws Exception {
    Runs runs = new Runs(home.resolve("busy-runs.log"));
    List<JobRequest> slow = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      slow.add(JobRequest.delay("test_sleep", runs.payload(5000), Duration.ZERO));
    }
    Set<String> ids = ids(queue.enqueueAll(slow));
    await().atMost(Duration.ofSeconds(20)).until(() -> runs.all().stream()
        .filter(r -> r.what().equals("start")).map(Runs.Run::pid).distinct().count() == 4);

    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Integer> scrapes = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<List<String>> tables = new ConcurrentLinkedQueue<>();
    ScheduledExecutorService every100ms = Executors.newScheduledThreadPool(2);
    every100ms.scheduleAtFixedRate(() -> {
      try {
        WebClient.Answer m = web.get("/metrics");
        scrapes.add(m.status());
        if (m.status() != 200) {
          problems.add("/metrics " + m.status() + ": " + m.body());
        }
        List<String> series = m.body().lines().filter(l -> l.startsWith("delayq_child_")).map(l -> l.split(" ")[0]).toList();
        if (new HashSet<>(series).size() != series.size()) {
          problems.add("a child series twice: " + series);
        }
      } catch (Exception e) {
        problems.add("/metrics: " + e);
      }
    }, 0, 100, TimeUnit.MILLISECONDS);
    every100ms.scheduleAtFixedRate(() -> sup.status().ifPresent(s -> {
      List<String> names = names(s);
      tables.add(names);
      if (new HashSet<>(names).size() != names.size()) {
        problems.add("two children share a name: " + names);
      }
    }), 0, 100, TimeUnit.MILLISECONDS);

    JsonNode down = sup.reload(1);
    JsonNode up = sup.reload(4);
    // 10 s and 50 scrapes at least: a scrape waits on the control thread, which a loaded host
    // (JVMs starting) slows, so 10 s alone may hold fewer
    long from = System.nanoTime();
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
        .until(() -> System.nanoTime() - from >= 10_000_000_000L && scrapes.size() >= 50);
    every100ms.shutdown();
    assertTrue(every100ms.awaitTermination(10, TimeUnit.SECONDS));

    assertEquals("workers: 4 -> 1", down.path("message").asText(), down.toString());
    assertEquals("workers: 1 -> 4", up.path("message").asText(), up.toString());
    assertEquals(List.of(), problems.stream().distinct().limit(10).toList());
    assertTrue(scrapes.size() >= 50, "scraped every 100 ms for 10 s or more: " + scrapes.size());
    List<String> overlap = tables.stream().filter(t -> t.stream().filter(n -> n.startsWith("worker-")).count() > 4)
        .findFirst().orElseThrow(() -> new AssertionError("the drain of worker-2..4 never overlapped the new workers"));
    assertTrue(overlap.containsAll(List.of("worker-2", "worker-5")), "draining and new side by side: " + overlap);
    assertTrue(Files.exists(home.resolve("logs/worker-5.log")), "the new worker has a log file of its own");

    await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200))
        .until(() -> sup.children("worker").size() == 4 && running() == 4);
    await().atMost(Duration.ofSeconds(30)).until(() -> ended(runs).containsAll(ids));
  }

  @Test
  @Order(2)
  void eightToOneToEightTenTimesEndsWithEightWorkersNoOrphanJvmAndNoJobLost() throws Exception {
    Runs runs = new Runs(home.resolve("cycle-runs.log"));
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      jobs.add(JobRequest.delay("test_sleep", runs.payload(50), Duration.ofMillis(i * 50L)));
    }
    Set<String> ids = ids(queue.enqueueAll(jobs));

    long began = System.nanoTime();
    for (int cycle = 0; cycle < 10; cycle++) {
      JsonNode toEight = sup.reload(8);
      assertTrue(toEight.path("ok").asBoolean(), toEight.toString());
      Thread.sleep(1500);
      JsonNode toOne = sup.reload(1);
      assertTrue(toOne.path("ok").asBoolean(), toOne.toString());
      Thread.sleep(1500);
    }
    assertTrue(sup.reload(8).path("ok").asBoolean());
    double cycling = (System.nanoTime() - began) / 1e9;

    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
        .until(() -> sup.children("worker").size() == 8 && running() == 8);
    List<Long> tablePids = sup.children("worker").stream().map(c -> c.path("pid").asLong()).sorted().toList();
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
        .until(() -> sup.workerJvms().equals(tablePids));
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() -> ended(runs).containsAll(ids));

    Set<String> lost = new HashSet<>(ids);
    lost.removeAll(ended(runs));
    assertEquals(Set.of(), lost, "every job ran to its end");
    assertEquals(0, inspector.depths().dead());
    assertEquals(List.of(), invariant.breaches(), "no breach of the invariant");
    assertEquals(8, new HashSet<>(names(sup.status().orElseThrow())).stream().filter(n -> n.startsWith("worker-")).count());
    long twice = runs.all().stream().filter(r -> r.what().equals("end")).count() - ids.size();
    System.out.printf("8 -> 1 -> 8 x10 in %.1fs: %d jobs, lost 0, ran twice %d; worker JVMs at the end %s%n",
        cycling, ids.size(), twice, tablePids);
  }
}
