package dev.delayq.supervisor.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.testing.RedisFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How the web server closes, which is the last thing a stopping supervisor waits for: at once
 * when idle (a stop must not linger for nothing), after the answer of a request already running.
 */
class WebServerCloseTest {
  private static final String TOKEN = "close-test-token";
  /** How long a request the test holds takes to answer. */
  private static final long SLOW_MS = 400;

  private final CountDownLatch asked = new CountDownLatch(1);
  private final Steering slowSteering = new Steering() {
    @Override
    public CompletableFuture<Processes> processes() {
      if (Thread.currentThread().getName().startsWith("web-")) {
        asked.countDown(); // a request's thread, not the samplers'
      }
      return CompletableFuture.supplyAsync(() -> new Processes(1, 0, List.of()),
          CompletableFuture.delayedExecutor(SLOW_MS, TimeUnit.MILLISECONDS));
    }

    @Override
    public CompletableFuture<String> resize(int workers) {
      return CompletableFuture.completedFuture("");
    }

    @Override
    public CompletableFuture<String> restart(String child) {
      return CompletableFuture.completedFuture("");
    }
  };

  private WebServer start(int port) {
    DelayqConfig config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", RedisFixture.get().url(),
        "DELAYQ_QUEUE", RedisFixture.freshQueue(), "DELAYQ_WEB_PORT", Integer.toString(port)));
    return WebServer.startIfEnabled(config, RedisFixture.get().url(), TOKEN, slowSteering).orElseThrow();
  }

  @Test
  void anIdleServerClosesAtOnce() throws Exception {
    WebServer server = start(LocalWebServer.freePort());

    long began = System.nanoTime();
    server.close();
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);

    // before, HttpServer.stop(1) slept its whole second on JDK 17 whatever was running: a floor
    // of 1000 ms; what is left (a few joins and closes) takes milliseconds, so half a second is
    // a bound that load cannot reach and the old way could not meet
    assertTrue(tookMs < 500, "an idle web server closed in " + tookMs + " ms");
  }

  @Test
  void aRequestRunningWhenTheServerClosesIsStillAnswered() throws Exception {
    int port = LocalWebServer.freePort();
    WebServer server = start(port);
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    CompletableFuture<HttpResponse<String>> status = http.sendAsync(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + "/api/status")).header("Authorization", "Bearer " + TOKEN)
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertTrue(asked.await(10, TimeUnit.SECONDS), "the request reached the server");

    server.close();

    assertEquals(200, status.get(10, TimeUnit.SECONDS).statusCode());
  }
}
