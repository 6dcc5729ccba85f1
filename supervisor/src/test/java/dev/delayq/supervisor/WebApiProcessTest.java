package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQueue;
import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web port of a real supervisor (scheduler and two worker JVMs on the test Redis): the JSON
 * API the dashboard uses, its guards, and /metrics after real jobs ran. The supervisor has a
 * configured token, which every API request must carry (on loopback too); /metrics and the page
 * need none. The tests share the supervisor and run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WebApiProcessTest {
  static final String TOKEN = "web-test-token";

  @TempDir
  static Path home;
  static SupervisorProcess sup;
  static WebClient web;
  static WebClient anonymous;
  static String queueName;
  static DelayQueue queue;
  static Inspector inspector;

  @BeforeAll
  static void startSupervisorWithTwoWorkersAndAToken() throws Exception {
    SupervisorProcess.requireChildJars();
    JobsJar.install(home);
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    env.put("DELAYQ_WEB_TOKEN", TOKEN);
    env.put("DELAYQ_QUEUE_HANDLER_WAIT", "1s"); // a job of a type no worker has goes to dead after this
    queueName = env.get("DELAYQ_QUEUE");
    Keys keys = new Keys("delayq", queueName);
    queue = new DelayQueue(RedisFixture.get().broker(keys), 1 << 20, 5);
    inspector = new Inspector(RedisFixture.get().redis(), keys);
    sup = SupervisorProcess.start(home, SupervisorProcess.quickWorkers(2, 2), env);
    web = new WebClient(sup.webUrl(), TOKEN);
    anonymous = new WebClient(sup.webUrl());
    await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(() -> web.up()
        && runningWorkers() == 2);
  }

  @AfterAll
  static void stopSupervisor() throws Exception {
    sup.close();
  }

  static long runningWorkers() {
    return sup.children("worker").stream().filter(c -> c.path("state").asText().equals("RUNNING")).count();
  }

  @Test
  @Order(1)
  void statusListsTheChildrenTheWorkerCountAndTheQueue() throws Exception {
    WebClient.Answer a = web.get("/api/status");
    assertEquals(200, a.status(), a.body());
    JsonNode s = a.json();
    assertEquals(2, s.path("workers").asInt());
    assertEquals(queueName, s.path("queue").asText());
    List<String> names = new ArrayList<>();
    s.path("children").forEach(c -> names.add(c.path("name").asText()));
    assertEquals(List.of("scheduler", "worker-1", "worker-2"), names);
    assertEquals(sup.child("worker-1").orElseThrow().path("pid").asLong(),
        s.path("children").get(1).path("pid").asLong(), "the same table the control socket shows");
    assertTrue(s.path("stats").path("depths").has("inFlight"), a.body());

    WebClient.Answer page = anonymous.get("/");
    assertEquals(200, page.status());
    assertTrue(page.header("Content-Type").orElse("").startsWith("text/html"));
    assertTrue(page.body().contains("id=\"worker-count\""), "the dashboard page");
    assertTrue(page.header("Content-Security-Policy").orElse("").contains("default-src 'self'"));
    for (String file : List.of("/app.js", "/charts.js", "/app.css", "/favicon.svg")) {
      assertEquals(200, anonymous.get(file).status(), file + ": the page's files need no token");
    }
  }

  @Test
  @Order(2)
  void metricsHaveEveryFamilyAfterJobsRan() throws Exception {
    Runs runs = new Runs(home.resolve("metrics-runs.log"));
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      jobs.add(JobRequest.delay("test_sleep", runs.payload(5), Duration.ZERO));
    }
    queue.enqueueAll(jobs);
    queue.delay("no_such_type", Map.of("n", 1), Duration.ZERO, JobOptions.withId("web-dead-1"));
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(() -> metric(web.get("/metrics").body(),
            "delayq_jobs_succeeded_total{queue=\"" + queueName + "\",type=\"test_sleep\"}") == 20
            && inspector.depths().dead() == 1);

    WebClient.Answer a = anonymous.get("/metrics");
    assertEquals(200, a.status(), "/metrics needs no token");
    assertTrue(a.header("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"), a.header("Content-Type").toString());
    String m = a.body();
    String q = "queue=\"" + queueName + "\"";
    assertEquals(20, metric(m, "delayq_jobs_enqueued_total{" + q + ",type=\"test_sleep\"}"));
    assertEquals(20, metric(m, "delayq_jobs_started_total{" + q + ",type=\"test_sleep\"}"));
    assertEquals(1, metric(m, "delayq_jobs_dead_total{" + q + ",type=\"no_such_type\"}"));
    assertTrue(m.contains("# TYPE delayq_job_lateness_seconds histogram"), m);
    assertTrue(metric(m, "delayq_job_lateness_seconds_bucket{" + q + ",le=\"+Inf\"}") >= 20);
    assertTrue(metric(m, "delayq_job_lateness_seconds_count{" + q + "}") >= 20);
    assertTrue(m.contains("delayq_job_lateness_seconds_bucket{" + q + ",le=\"0.001\"}"), "LatencyBuckets bounds in seconds");
    assertTrue(m.contains("# TYPE delayq_job_duration_seconds histogram"));
    assertEquals(20, metric(m, "delayq_job_duration_seconds_count{" + q + ",type=\"test_sleep\"}"));
    assertEquals(20, metric(m, "delayq_job_duration_seconds_bucket{" + q + ",type=\"test_sleep\",le=\"+Inf\"}"));
    assertTrue(metric(m, "delayq_job_duration_seconds_sum{" + q + ",type=\"test_sleep\"}") >= 0.1, "20 jobs of 5 ms");
    for (String state : List.of("delayed", "ready", "in_flight")) {
      assertEquals(0, metric(m, "delayq_queue_jobs{" + q + ",state=\"" + state + "\"}"), state);
    }
    assertEquals(1, metric(m, "delayq_queue_jobs{" + q + ",state=\"dead\"}"));
    assertEquals(0, metric(m, "delayq_queue_backlog_jobs{" + q + "}"));
    assertEquals(1, metric(m, "delayq_redis_up{" + q + "}"));
    assertEquals(1, metric(m, "delayq_child_state{child=\"worker-1\",role=\"worker\",state=\"RUNNING\"}"));
    assertEquals(0, metric(m, "delayq_child_state{child=\"worker-1\",role=\"worker\",state=\"FATAL\"}"));
    assertEquals(0, metric(m, "delayq_child_restarts_total{child=\"scheduler\",role=\"scheduler\"}"));
    assertTrue(metric(m, "delayq_child_uptime_seconds{child=\"worker-2\",role=\"worker\"}") > 0);
    assertEquals(2, metric(m, "delayq_workers_desired"));
    assertTrue(m.contains("jvm_memory_used_bytes{area=\"heap\"}"), "the supervisor's JVM metrics");

    String open = web.get("/metrics", "Accept", "application/openmetrics-text; version=1.0.0").body();
    assertTrue(open.trim().endsWith("# EOF"), "OpenMetrics when the scraper asks for it");

    await().atMost(Duration.ofSeconds(10)).until(() -> {
      JsonNode points = web.get("/api/series?seconds=120").json().path("points");
      long succeeded = 0;
      for (JsonNode p : points) {
        succeeded += p.path("counts").path("succeeded").asLong();
      }
      return succeeded == 20;
    });
    JsonNode series = web.get("/api/series?seconds=120").json();
    assertEquals(120, series.path("points").size());
    boolean lateness = false;
    for (JsonNode p : series.path("points")) {
      lateness |= p.path("latenessP99Ms").isNumber();
    }
    assertTrue(lateness, "lateness quantiles for the seconds jobs started in");
    assertTrue(series.path("depths").size() >= 1, "status reads sample the depths");
    assertEquals(400, web.get("/api/series?seconds=999999").status());
  }

  @Test
  @Order(3)
  void apiRequestsWithoutTheTokenWithAWrongOneOrFromAnotherOriginAreRefused() throws Exception {
    WebClient.Answer none = anonymous.post("/api/resize", Map.of("workers", 3));
    assertEquals(401, none.status(), none.body());
    assertEquals("Bearer realm=\"delayq\"", none.header("WWW-Authenticate").orElse(""));
    assertEquals(401, anonymous.post("/api/resize", Map.of("workers", 3), "Authorization", "Bearer wrong").status());
    assertEquals(401, anonymous.post("/api/dead/retry-all", null).status());
    assertEquals(401, anonymous.post("/api/dead/purge", Map.of()).status());
    for (String read : List.of("/api/dead", "/api/status", "/api/series", "/api/forecast")) {
      assertEquals(401, anonymous.get(read).status(), read + " shows job data: it needs the token too");
      assertEquals(401, anonymous.get(read, "Authorization", "Bearer wrong").status(), read);
    }
    WebClient.Answer csrf = anonymous.post("/api/resize", Map.of("workers", 3),
        "Authorization", "Bearer " + TOKEN, "Origin", "http://evil.example");
    assertEquals(403, csrf.status(), csrf.body());
    assertTrue(csrf.json().path("error").asText().contains("cross-origin"));
    assertEquals(403, anonymous.get("/api/dead", "Authorization", "Bearer " + TOKEN, "Origin", "http://evil.example")
        .status(), "a read from another origin too");
    assertEquals(200, anonymous.get("/metrics").status(), "/metrics stays open");
    assertEquals(2, sup.children("worker").size(), "nothing was resized");
  }

  @Test
  @Order(4)
  void resizeThroughTheApiChangesStatus() throws Exception {
    WebClient.Answer up = anonymous.post("/api/resize", Map.of("workers", 3), "Authorization", "Bearer " + TOKEN,
        "Origin", sup.webUrl());
    assertEquals(200, up.status(), up.body());
    assertTrue(up.json().path("message").asText().contains("2 -> 3"), up.body());
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> runningWorkers() == 3);
    SupervisorProcess.CliResult status = sup.run("status", "--config", sup.config.toString());
    assertEquals(0, status.code(), status.output());
    assertTrue(status.output().contains("worker-3"), status.output());
    assertEquals(3, web.get("/api/status").json().path("workers").asInt());

    assertEquals(200, web.post("/api/resize", Map.of("workers", 2)).status());
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(() -> sup.children("worker").size() == 2 && runningWorkers() == 2);

    WebClient.Answer tooMany = web.post("/api/resize", Map.of("workers", 17));
    assertEquals(400, tooMany.status(), tooMany.body());
    assertTrue(tooMany.json().path("error").asText().contains("worker.maxProcesses (16"), tooMany.body());
    for (Object bad : List.of(Map.of("workers", -1), Map.of("workers", 257), Map.of("workers", "x"),
        Map.of("workers", 1.5), Map.of(), "not json", "[1]")) {
      WebClient.Answer a = web.post("/api/resize", bad);
      assertEquals(400, a.status(), bad + ": " + a.body());
      assertFalse(a.json().path("error").asText().isEmpty());
    }
  }

  @Test
  @Order(5)
  void restartThroughTheApiReplacesTheProcess() throws Exception {
    long before = sup.child("worker-2").orElseThrow().path("pid").asLong();
    WebClient.Answer a = web.post("/api/children/worker-2/restart", null);
    assertEquals(200, a.status(), a.body());
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> sup.child("worker-2")
        .map(c -> c.path("state").asText().equals("RUNNING") && c.path("pid").asLong() != before).orElse(false));
    assertEquals(0, sup.child("worker-2").orElseThrow().path("lastExitCode").asInt(), "it drained and exited 0");
    assertEquals(2, runningWorkers());

    assertEquals(404, web.post("/api/children/worker-9/restart", null).status());
  }

  @Test
  @Order(6)
  void deadJobsAreListedRetriedAndPurged() throws Exception {
    JsonNode dead = web.get("/api/dead?limit=10").json();
    assertEquals(1, dead.path("jobs").size(), dead.toString());
    JsonNode job = dead.path("jobs").get(0);
    assertEquals("web-dead-1", job.path("id").asText());
    assertEquals("no_such_type", job.path("type").asText());
    assertTrue(job.path("lastError").asText().contains("no_such_type"), job.toString());
    assertEquals("{\"n\":1}", job.path("payload").asText());

    Path unlock = home.resolve("unlocked");
    Path log = home.resolve("flaky-runs.log");
    String flaky = queue.delay("test_flaky", Map.of("unlock", unlock.toString(), "log", log.toString()), Duration.ZERO,
        JobOptions.defaults().maxAttempts(1)).id();
    await().atMost(Duration.ofSeconds(15)).until(() -> inspector.depths().dead() == 2);
    java.nio.file.Files.createFile(unlock);
    WebClient.Answer retried = web.post("/api/dead/" + flaky + "/retry", null);
    assertEquals(200, retried.status(), retried.body());
    await().atMost(Duration.ofSeconds(15)).until(() -> java.nio.file.Files.exists(log)
        && java.nio.file.Files.readString(log).startsWith("done " + flaky));
    assertEquals(404, web.post("/api/dead/no-such-job/retry", null).status());

    assertEquals(0, web.post("/api/dead/purge", Map.of("olderThan", "1h")).json().path("purged").asInt());
    assertEquals(400, web.post("/api/dead/purge", Map.of("olderThan", "soon")).status());
    WebClient.Answer all = web.post("/api/dead/retry-all", null);
    assertEquals(1, all.json().path("retried").asInt(), all.body());
    await().atMost(Duration.ofSeconds(15)).until(() -> inspector.depths().dead() == 1); // no worker has its type: dead again
    WebClient.Answer purged = web.post("/api/dead/purge", Map.of());
    assertEquals(1, purged.json().path("purged").asInt(), purged.body());
    assertEquals(0, web.get("/api/dead").json().path("jobs").size());
    assertEquals(0, inspector.depths().records());
  }

  @Test
  @Order(7)
  void forecastCountsTheJobsFallingDuePerMinute() throws Exception {
    List<JobRequest> later = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      later.add(JobRequest.delay("test_sleep", Map.of("ms", 0), Duration.ofSeconds(150)));
    }
    later.add(JobRequest.delay("test_sleep", Map.of("ms", 0), Duration.ofMinutes(30)));
    queue.enqueueAll(later);
    JsonNode f = web.get("/api/forecast?minutes=10").json();
    assertEquals(60_000, f.path("stepMs").asLong());
    assertEquals(10, f.path("counts").size());
    assertEquals(5, f.path("counts").get(2).asLong(), f.toString());
    long sum = 0;
    for (JsonNode n : f.path("counts")) {
      sum += n.asLong();
    }
    assertEquals(5, sum, "the job due in 30 min is past the horizon");
    assertEquals(60, web.get("/api/forecast").json().path("counts").size(), "an hour by default");
    assertEquals(400, web.get("/api/forecast?minutes=0").status());
  }

  @Test
  @Order(8)
  void unknownRoutesAndMethodsGetTheirStatus() throws Exception {
    assertEquals(404, web.get("/api/nothing").status());
    assertEquals(404, web.get("/nothing.html").status());
    assertEquals(405, web.post("/api/status", null).status());
    assertEquals(405, web.get("/api/resize").status());
    assertEquals(401, anonymous.send("DELETE", "/api/status").status(), "the guard comes first");
    assertEquals(405, web.send("DELETE", "/api/status").status());
    assertEquals(404, web.post("/api/dead/x/y/z", null).status());
  }

  @Test
  @Order(9)
  void aBindBeyondLoopbackWithoutATokenIsRefusedAtStart() throws Exception {
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    SupervisorProcess refused = SupervisorProcess.start(home.resolve("open"), """
        web:
          bind: 0.0.0.0
        """, env);
    try {
      assertTrue(refused.process.waitFor(30, TimeUnit.SECONDS), "it exits");
      assertEquals(1, refused.process.exitValue());
      String out = refused.output();
      assertTrue(out.contains("web.token") && out.contains("0.0.0.0") && out.contains("loopback"), out);
    } finally {
      refused.close();
    }
  }

  /** The value of the sample {@code series} (name and labels exactly as written), or -1. */
  static double metric(String exposition, String series) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(exposition);
    return m.find() ? Double.parseDouble(m.group(1)) : -1;
  }
}
