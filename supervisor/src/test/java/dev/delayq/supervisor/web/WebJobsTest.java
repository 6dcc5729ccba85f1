package dev.delayq.supervisor.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.redis.Keys;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's job browser and schedules API in this JVM: bounded pages, run now / reschedule /
 * edit / cancel, and recurring schedules.
 */
class WebJobsTest {
  private static final String TOKEN = "jobs-test-token";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String queue = RedisFixture.freshQueue();
  private final QueueProbe probe = new QueueProbe(RedisFixture.get().broker(new Keys("delayq", queue)));
  private final HttpClient http = HttpClient.newHttpClient();
  private WebServer server;
  private String base;

  @BeforeEach
  void start() throws Exception {
    LocalWebServer web = LocalWebServer.start(queue, TOKEN, LocalWebServer.ONE_WORKER);
    server = web.server();
    base = web.base();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private record Reply(int status, JsonNode body) {}

  private Reply get(String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
        .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), JSON.readTree(r.body()));
  }

  private Reply post(String path, String body) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
        .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), JSON.readTree(r.body()));
  }

  private static List<String> ids(JsonNode page) {
    List<String> out = new ArrayList<>();
    page.path("jobs").forEach(j -> out.add(j.path("id").asText()));
    return out;
  }

  @Test
  void delayedJobsOfTheNextHourListInDueOrderAndPage() throws Exception {
    probe.seedDelayed("in-2h", 7_200_000);
    probe.seedDelayed("b", 20_000);
    probe.seedDelayed("a", 10_000);
    probe.seedDelayed("c", 30_000);

    Reply hour = get("/api/jobs?state=delayed&within=60&limit=2");
    Reply rest = get("/api/jobs?state=delayed&within=60&limit=2&offset=" + hour.body().path("nextOffset").asLong());
    Reply byPrefix = get("/api/jobs?state=delayed&prefix=in-");
    Reply one = get("/api/jobs?id=b");

    assertEquals(200, hour.status(), hour.body().toString());
    assertEquals(List.of("a", "b"), ids(hour.body()));
    assertEquals(List.of("c"), ids(rest.body()));
    assertEquals(-1, rest.body().path("nextOffset").asLong());
    assertEquals(List.of("in-2h"), ids(byPrefix.body()));
    assertEquals("{\"n\":1}", hour.body().path("jobs").get(0).path("payload").asText());
    assertEquals("DELAYED", one.body().path("jobs").get(0).path("state").asText());
    assertEquals(400, get("/api/jobs?state=dead").status());
  }

  @Test
  void runNowRescheduleEditAndCancelChangeTheJob() throws Exception {
    probe.seedDelayed("j1", 3_600_000);
    probe.seedDelayed("j2", 3_600_000);

    Reply promoted = post("/api/jobs/j1/promote", "");
    Reply rescheduled = post("/api/jobs/j2/reschedule", "{\"delay\":\"10m\"}");
    Reply edited = post("/api/jobs/j2/edit", "{\"payload\":\"{\\\"n\\\": 12345678901234567890}\"}");

    assertEquals(200, promoted.status(), promoted.body().toString());
    assertEquals("READY", promoted.body().path("state").asText());
    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(200, rescheduled.status(), rescheduled.body().toString());
    assertTrue(probe.dueAt("j2") < probe.redisNowMs() + 600_001);
    assertEquals(200, edited.status(), edited.body().toString());
    assertTrue(probe.rawRecord("j2").endsWith(",\"p\":{\"n\":12345678901234567890}}"), probe.rawRecord("j2"));

    Reply cancelled = post("/api/jobs/j2/cancel", "");
    assertEquals(200, cancelled.status(), cancelled.body().toString());
    assertEquals(List.of(), probe.placesOf("j2"));
  }

  @Test
  void aRescheduleOutOfTheRangeOfDueTimesIsA400NamingTheLimit() throws Exception {
    long due = probe.seedDelayed("j1", 60_000);

    Reply far = post("/api/jobs/j1/reschedule", "{\"delay\":\"60000000d\"}");
    Reply overflowing = post("/api/jobs/j1/reschedule", "{\"delay\":\"9223372036854775807s\"}");
    Reply farAt = post("/api/jobs/j1/reschedule", "{\"at\":\"+200000-01-01T00:00:00Z\"}");

    for (Reply r : List.of(far, overflowing, farAt)) {
      assertEquals(400, r.status(), r.body().toString());
      assertTrue(r.body().path("error").asText().contains(
          "due times run from the epoch (1970-01-01T00:00:00Z) to 9999-12-31T23:59:59.999Z"), r.body().toString());
    }
    assertEquals(due, probe.dueAt("j1"));
  }

  @Test
  void refusalsSayWhy() throws Exception {
    probe.seedInFlight("c1", "running");
    probe.seedDelayed("j1", 60_000);

    Reply running = post("/api/jobs/running/promote", "");
    Reply unknown = post("/api/jobs/nope/reschedule", "{\"delay\":\"1m\"}");
    Reply badDelay = post("/api/jobs/j1/reschedule", "{\"delay\":\"soon\"}");
    Reply both = post("/api/jobs/j1/reschedule", "{\"delay\":\"1m\",\"at\":\"2099-01-01T00:00:00Z\"}");
    Reply badJson = post("/api/jobs/j1/edit", "{\"payload\":\"{oops\"}");
    Reply noAction = post("/api/jobs/j1/explode", "");
    Reply noToken = new Reply(http.send(HttpRequest.newBuilder(URI.create(base + "/api/jobs/j1/promote"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode(), null);

    assertEquals(409, running.status());
    assertTrue(running.body().path("error").asText().contains("is running"), running.body().toString());
    assertEquals(404, unknown.status());
    assertEquals(400, badDelay.status(), badDelay.body().toString());
    assertEquals(400, both.status(), both.body().toString());
    assertEquals(400, badJson.status(), badJson.body().toString());
    assertTrue(badJson.body().path("error").asText().contains("not JSON"), badJson.body().toString());
    assertEquals(404, noAction.status());
    assertEquals(401, noToken.status());
    assertEquals(List.of("delayed"), probe.placesOf("j1"));

    Reply cancelRunning = post("/api/jobs/running/cancel", "");
    assertEquals(200, cancelRunning.status(), cancelRunning.body().toString());
    assertTrue(RedisFixture.get().redis().exists(new Keys("delayq", queue).cancelRequest("running")),
        "its worker is asked to interrupt it");
    assertEquals(404, post("/api/jobs/nope/cancel", "").status());
  }

  @Test
  void schedulesAreSavedListedPausedRunAndRemoved() throws Exception {
    Reply saved = post("/api/schedules", "{\"id\":\"sweep\",\"cron\":\"*/5 * * * *\",\"tz\":\"Asia/Shanghai\","
        + "\"type\":\"order_sweep\",\"payload\":\"{\\\"batch\\\":100}\",\"missed\":\"run-once\"}");
    assertEquals(200, saved.status(), saved.body().toString());

    JsonNode list = get("/api/schedules").body().path("schedules");
    assertEquals(1, list.size());
    JsonNode s = list.get(0);
    assertEquals("cron */5 * * * * (Asia/Shanghai)", s.path("cadence").asText());
    assertEquals("{\"batch\":100}", s.path("payload").asText());
    assertEquals(5, s.path("nextTicks").size());
    assertEquals(0, s.path("nextTicks").get(0).asLong() % 300_000);
    assertEquals("run-once", s.path("missed").asText());

    assertEquals(200, post("/api/schedules/sweep/pause", "").status());
    assertTrue(get("/api/schedules").body().path("schedules").get(0).path("paused").asBoolean());
    Reply run = post("/api/schedules/sweep/run", "");
    assertEquals(200, run.status(), run.body().toString());
    assertTrue(run.body().path("message").asText().contains("job sweep@run-"), run.body().toString());
    assertEquals(200, post("/api/schedules/sweep/remove", "").status());
    assertEquals(0, get("/api/schedules").body().path("schedules").size());
    assertEquals(404, post("/api/schedules/sweep/resume", "").status());
    Reply bad = post("/api/schedules", "{\"id\":\"x\",\"cron\":\"nope\",\"type\":\"t\"}");
    assertEquals(400, bad.status(), bad.body().toString());
    assertTrue(bad.body().path("error").asText().contains("has 1 fields"), bad.body().toString());
  }
}
