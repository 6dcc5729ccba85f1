package dev.delayq.supervisor.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.redis.Keys;
import dev.delayq.testing.RedisFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/** The dashboard's schedules API beside a schedule whose stored definition cannot be read, and a cron that never fires. */
class WebBrokenSchedulesTest {
  private static final String TOKEN = "broken-schedules-token";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String queue = RedisFixture.freshQueue();
  private final Keys keys = new Keys("delayq", queue);
  private final UnifiedJedis redis = RedisFixture.get().redis();
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

  private Reply send(HttpRequest.Builder request) throws Exception {
    HttpResponse<String> r = http.send(request.header("Authorization", "Bearer " + TOKEN).build(),
        HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), JSON.readTree(r.body()));
  }

  private Reply get(String path) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(base + path)));
  }

  private Reply post(String path, String body) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(base + path)).POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  @Test
  void theListShowsTheOthersWithTheBrokenOneMarkedAndItCanBeRemoved() throws Exception {
    assertEquals(200, post("/api/schedules", "{\"id\":\"sweep\",\"every\":\"30s\",\"type\":\"order_sweep\"}").status());
    redis.hset(keys.schedules(), "mars", "{\"id\":\"mars\",\"cron\":\"0 9 * * *\",\"tz\":\"Mars/Olympus\",\"type\":\"t\"}");

    Reply list = get("/api/schedules");

    assertEquals(200, list.status(), list.body().toString());
    JsonNode rows = list.body().path("schedules");
    assertEquals(2, rows.size(), rows.toString());
    assertEquals("sweep", rows.get(0).path("id").asText());
    assertEquals(5, rows.get(0).path("nextTicks").size());
    assertEquals("mars", rows.get(1).path("id").asText());
    assertTrue(rows.get(1).path("broken").asText().contains("Mars/Olympus"), rows.toString());
    assertEquals(200, post("/api/schedules/mars/remove", "").status());
    assertEquals(1, get("/api/schedules").body().path("schedules").size());
  }

  @Test
  void aCronThatNeverFiresIsRefusedWith400() throws Exception {
    Reply r = post("/api/schedules", "{\"id\":\"feb30\",\"cron\":\"0 0 30 2 *\",\"type\":\"t\"}");

    assertEquals(400, r.status(), r.body().toString());
    assertTrue(r.body().path("error").asText().contains("'0 0 30 2 *' never fires"), r.body().toString());
    assertEquals(0, get("/api/schedules").body().path("schedules").size());
  }
}
