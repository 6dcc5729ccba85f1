package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQueue;
import dev.delayq.JobRequest;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two hosts on one queue, as two machines run them: two supervisors with homes of their own
 * (DELAYQ_HOST host-a and host-b, as their machines' names would be) on one Redis. Their
 * workers share the queue, one scheduler leads, each host's status and metrics show the whole
 * queue; kill -9 of host B's whole tree (supervisor and children at once, as a power cut) and
 * host A's recoverer returns B's jobs within heartbeatTtl, with nothing lost.
 */
class SeveralHostsProcessTest {
  private static final int JOBS = 60;
  private static final Duration HEARTBEAT_TTL = Duration.ofSeconds(3);
  private static final String YAML = """
      scheduler:
        leaseTtl: 2s
        recoverInterval: 250ms
      worker:
        processes: 1
        threads: 3
        pollTimeout: 500ms
        heartbeatInterval: 500ms
        heartbeatTtl: 3s
      jvm:
        worker: "-Xms32m -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
        scheduler: "-Xms16m -Xmx96m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
      """;

  @TempDir
  Path dir;

  @Test
  void twoHostsShareOneQueueAndTheSurvivorTakesBackADeadHostsJobsWithinHeartbeatTtl() throws Exception {
    SupervisorProcess.requireChildJars();
    Map<String, String> envA = SupervisorProcess.testRedisEnv();
    envA.put("DELAYQ_HOST", "host-a");
    Map<String, String> envB = new HashMap<>(envA);
    envB.put("DELAYQ_HOST", "host-b");
    envB.put("DELAYQ_WEB_PORT", Integer.toString(SupervisorProcess.freePort()));
    Keys keys = new Keys("delayq", envA.get("DELAYQ_QUEUE"));
    Inspector inspector = new Inspector(RedisFixture.get().redis(), keys);
    InvariantCheck invariant = new InvariantCheck(RedisFixture.get().redis(), keys);
    Path runs = dir.resolve("runs.log");
    JobsJar.install(dir.resolve("host-a"));
    JobsJar.install(dir.resolve("host-b"));

    try (SupervisorProcess a = SupervisorProcess.start(dir.resolve("host-a"), YAML, envA);
        SupervisorProcess b = SupervisorProcess.start(dir.resolve("host-b"), YAML, envB)) {
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
          .until(() -> running(a) == 2 && running(b) == 2);

      await().atMost(Duration.ofSeconds(20)).until(() -> RedisFixture.get().redis().get(keys.leader()) != null);
      String leader = RedisFixture.get().redis().get(keys.leader());
      assertTrue(leader.startsWith("scheduler@host-a:") || leader.startsWith("scheduler@host-b:"), leader);
      // the log line follows the lease by a moment
      java.util.function.LongSupplier leaders = () -> List.of(a, b).stream()
          .filter(h -> h.log("scheduler").contains("leader lease taken")).count();
      await().atMost(Duration.ofSeconds(10)).until(() -> leaders.getAsLong() >= 1);
      assertEquals(1, leaders.getAsLong(), "one scheduler leads, the other is its hot standby");

      DelayQueue queue = new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5);
      List<JobRequest> later = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        later.add(JobRequest.delay("test_sleep", "{}", Duration.ofHours(1)));
      }
      queue.enqueueAll(later);
      for (SupervisorProcess host : List.of(a, b)) {
        await().atMost(Duration.ofSeconds(10)).until(() -> host.status().orElseThrow()
            .path("queue").path("delayed").asLong() == 100);
        await().atMost(Duration.ofSeconds(10)).until(() -> metrics(host)
            .contains("delayq_queue_jobs{queue=\"" + envA.get("DELAYQ_QUEUE") + "\",state=\"delayed\"} 100.0"));
      }

      List<JobRequest> jobs = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        jobs.add(JobRequest.delay("test_sleep", "{\"ms\":600,\"log\":\"" + runs + "\"}", Duration.ZERO));
      }
      queue.enqueueAll(jobs);
      long pidA = workerPid(a);
      long pidB = workerPid(b);
      await().atMost(Duration.ofSeconds(30)).until(() -> starts(runs, pidA) >= 3 && starts(runs, pidB) >= 3);

      List<ProcessHandle> hostB = new ArrayList<>();
      hostB.add(b.process.toHandle());
      for (JsonNode child : b.status().orElseThrow().path("children")) {
        ProcessHandle.of(child.path("pid").asLong()).ifPresent(hostB::add);
      }
      String prefixB = "worker-1@host-b:" + pidB + ":";
      hostB.forEach(ProcessHandle::destroyForcibly);
      long killedAt = System.nanoTime();
      for (ProcessHandle p : hostB) {
        p.onExit().get(10, TimeUnit.SECONDS);
      }
      assertTrue(inFlight(keys, prefixB) > 0, "host B died with jobs in hand");

      await().atMost(HEARTBEAT_TTL.plusSeconds(5)).pollInterval(Duration.ofMillis(50))
          .until(() -> inFlight(keys, prefixB) == 0);
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
      System.out.println("several hosts: host B's jobs were back " + tookMs + " ms after the kill (heartbeatTtl "
          + HEARTBEAT_TTL.toMillis() + " ms)");
      assertTrue(tookMs <= HEARTBEAT_TTL.toMillis() + 1_000, "back after " + tookMs + " ms");

      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
          .until(() -> ended(runs).size() == JOBS);
      assertEquals(100, inspector.depths().records(), "only the jobs due in an hour are left");
      assertEquals(List.of(), invariant.breaches());
    }
  }

  private static long running(SupervisorProcess host) {
    return host.status().map(s -> {
      long n = 0;
      for (JsonNode c : s.path("children")) {
        n += c.path("state").asText().equals("RUNNING") ? 1 : 0;
      }
      return n;
    }).orElse(0L);
  }

  private static long workerPid(SupervisorProcess host) {
    return host.child("worker-1").orElseThrow().path("pid").asLong();
  }

  private static String metrics(SupervisorProcess host) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(host.webUrl() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString());
    return r.body();
  }

  private static long inFlight(Keys keys, String consumerPrefix) {
    var redis = RedisFixture.get().redis();
    long n = 0;
    for (String key : redis.keys(keys.inFlight(consumerPrefix) + "*")) {
      n += redis.llen(key);
    }
    return n;
  }

  private static List<String> lines(Path runs) throws Exception {
    return Files.exists(runs) ? Files.readAllLines(runs) : List.of();
  }

  private static long starts(Path runs, long pid) throws Exception {
    return lines(runs).stream().filter(l -> l.startsWith("start ") && l.endsWith(" " + pid)).count();
  }

  /** The ids that finished at least once. */
  private static Set<String> ended(Path runs) throws Exception {
    Set<String> ids = new HashSet<>();
    for (String line : lines(runs)) {
      if (line.startsWith("end ")) {
        ids.add(line.split(" ")[1]);
      }
    }
    return ids;
  }
}
