package dev.delayq.supervisor.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.testing.RedisFixture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The web server in this JVM, with a stand-in for the supervisor: the off switch, a busy port, the wiring. */
class WebServerStartTest {
  private static final String TOKEN = "start-test-token";
  private final List<String> asked = new ArrayList<>();

  private final Steering steering = new Steering() {
    @Override
    public CompletableFuture<Processes> processes() {
      return CompletableFuture.completedFuture(new Processes(1, 1, List.of(
          new ChildRow("worker-1", "worker", 42L, "RUNNING", 0, null, 1000))));
    }

    @Override
    public CompletableFuture<String> resize(int workers) {
      asked.add("resize " + workers);
      return CompletableFuture.completedFuture("workers: 1 -> " + workers);
    }

    @Override
    public CompletableFuture<String> restart(String child) {
      asked.add("restart " + child);
      return CompletableFuture.failedFuture(new IllegalStateException("the supervisor is stopping"));
    }
  };

  private static DelayqConfig config(String... env) {
    Map<String, String> vars = new HashMap<>();
    vars.put("DELAYQ_REDIS_URL", RedisFixture.get().url());
    vars.put("DELAYQ_QUEUE", RedisFixture.freshQueue());
    for (int i = 0; i + 1 < env.length; i += 2) {
      vars.put(env[i], env[i + 1]);
    }
    return new ConfigLoader().load(null, vars);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void offSwitchServesNothing() {
    assertEquals(Optional.empty(), WebServer.startIfEnabled(config("DELAYQ_WEB_ENABLED", "false"),
        RedisFixture.get().url(), TOKEN, steering));
  }

  @Test
  void busyPortIsLoggedAndTheSupervisorRunsOn() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      DelayqConfig c = config("DELAYQ_WEB_PORT", Integer.toString(taken.getLocalPort()));
      assertEquals(Optional.empty(), WebServer.startIfEnabled(c, RedisFixture.get().url(), TOKEN, steering));
    }
  }

  @Test
  void requestsReachTheSupervisorThroughSteering() throws Exception {
    int port = freePort();
    try (WebServer server = WebServer.startIfEnabled(config("DELAYQ_WEB_PORT", Integer.toString(port)),
        RedisFixture.get().url(), TOKEN, steering).orElseThrow()) {
      HttpClient http = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + port;
      assertEquals(base + "/", server.url());
      HttpResponse<String> status = http.send(HttpRequest.newBuilder(URI.create(base + "/api/status"))
          .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
      JsonNode s = new ObjectMapper().readTree(status.body());
      assertEquals(42, s.path("children").get(0).path("pid").asLong(), status.body());
      assertEquals(0, s.path("stats").path("depths").path("delayed").asLong(), "an empty queue");

      HttpResponse<String> resize = http.send(HttpRequest.newBuilder(URI.create(base + "/api/resize"))
          .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString("{\"workers\":4}")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, resize.statusCode(), resize.body());
      HttpResponse<String> restart = http.send(HttpRequest.newBuilder(URI.create(base + "/api/children/worker-1/restart"))
          .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(409, restart.statusCode(), restart.body());
      assertTrue(restart.body().contains("the supervisor is stopping"), restart.body());
      assertEquals(List.of("resize 4", "restart worker-1"), asked);
    }
  }
}
