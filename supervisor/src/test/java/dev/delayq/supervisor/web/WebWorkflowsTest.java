package dev.delayq.supervisor.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.Keys;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.Workflows;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the dashboard's API tells of workflows: the status counts the jobs waiting for others and
 * carries the open batches with their counts (behind the token as the rest), and a job's detail
 * names what it waits for and, once it ended, its kept result.
 */
class WebWorkflowsTest {
  private static final String TOKEN = "workflows-test-token";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String queue = RedisFixture.freshQueue();
  private final RedisBroker broker = RedisFixture.get().broker(new Keys("delayq", queue));
  private final Workflows flows = broker.workflows();
  private final HttpClient http = HttpClient.newHttpClient();
  private LocalWebServer web;

  @BeforeEach
  void start() throws Exception {
    web = LocalWebServer.start(queue, TOKEN, LocalWebServer.ONE_WORKER);
  }

  @AfterEach
  void stop() {
    web.close();
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(web.base() + path));
    if (token != null) {
      r.header("Authorization", "Bearer " + token);
    }
    return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode json(String path) throws Exception {
    HttpResponse<String> r = get(path, TOKEN);
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }

  private static Workflows.FlowJob job(String id, String batch, String... waits) {
    String extra = (batch == null ? "" : ",\"b\":\"" + batch + "\"") + ",\"wf\":1";
    return new Workflows.FlowJob(new NewJob(id, JobRecord.newHead(QueueProbe.TYPE, 3, false, Map.of(), extra),
        "{}", 0, false), List.of(waits), "fail");
  }

  @Test
  void theStatusCountsWaitingJobsAndCarriesTheOpenBatchesWithTheirCounts() throws Exception {
    JsonNode before = json("/api/status").path("stats");
    assertEquals(0, before.path("depths").path("waiting").asLong());
    assertEquals(0, before.path("batches").size(), "no batch open: an empty table");

    flows.openBatch("nightly-reprice");
    flows.enqueue("nightly-reprice", List.of(job("p1", "nightly-reprice"), job("p2", "nightly-reprice")));
    flows.closeBatch("nightly-reprice", null, null);
    flows.openBatch("empty-yet");
    flows.enqueue(null, List.of(job("reindex", null, "p1", "p2")));
    Claimed c = broker.claims().claim("c1", 1.0, 30_000).orElseThrow();
    assertTrue(broker.outcomes().deadLetter("c1", c.delivery(), "boom"));

    JsonNode stats = json("/api/status").path("stats");
    // p1 went dead and "reindex" fails with it (its policy): nothing waits any more
    assertEquals(0, stats.path("depths").path("waiting").asLong(), stats.toString());
    assertEquals(2, stats.path("depths").path("batchesOpen").asLong(), stats.toString());
    JsonNode batches = stats.path("batches");
    assertEquals(2, batches.size(), stats.toString());
    JsonNode b = batches.get(0);
    assertEquals("nightly-reprice", b.path("id").asText());
    assertEquals("closed", b.path("state").asText());
    assertEquals(2, b.path("total").asLong());
    assertEquals(1, b.path("pending").asLong());
    assertEquals(0, b.path("done").asLong());
    assertEquals(1, b.path("dead").asLong());
    assertEquals("empty-yet", batches.get(1).path("id").asText());
    assertEquals("open", batches.get(1).path("state").asText());

    assertEquals(401, get("/api/status", null).statusCode(), "the status stays behind the token");
  }

  @Test
  void aJobsDetailNamesWhatItWaitsForAndOnceEndedItsResult() throws Exception {
    flows.enqueue(null, List.of(job("charge", null)));
    flows.enqueue(null, List.of(job("receipt", null, "charge")));
    assertEquals(1, json("/api/status").path("stats").path("depths").path("waiting").asLong());

    JsonNode waiting = json("/api/jobs?id=receipt").path("jobs").get(0);
    assertEquals("WAITING", waiting.path("state").asText());
    assertEquals("charge", waiting.path("waitingFor").get(0).asText());
    assertEquals("fail", waiting.path("ifDependencyFails").asText());
    flows.enqueue(null, List.of(job("unwanted", null, "charge")));
    HttpResponse<String> cancelled = http.send(HttpRequest.newBuilder(URI.create(web.base() + "/api/jobs/unwanted/cancel"))
        .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, cancelled.statusCode(), "a waiting job is cancelled from the page: " + cancelled.body());
    JsonNode gone = json("/api/jobs?id=unwanted").path("jobs").get(0);
    assertEquals("ENDED", gone.path("state").asText(), gone.toString());
    assertEquals("cancelled", gone.path("ended").asText(), "its end is kept as a workflow job's: " + gone);

    Claimed c = broker.claims().claim("c1", 1.0, 30_000).orElseThrow();
    assertTrue(broker.outcomes().complete("c1", c.delivery(), false, "{\"charge\":\"ch_1\"}"));

    JsonNode ended = json("/api/jobs?id=charge").path("jobs").get(0);
    assertEquals("ENDED", ended.path("state").asText());
    assertEquals("done", ended.path("ended").asText());
    assertEquals("{\"charge\":\"ch_1\"}", ended.path("result").asText());
    assertEquals("READY", json("/api/jobs?id=receipt").path("jobs").get(0).path("state").asText());
  }
}
