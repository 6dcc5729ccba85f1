package dev.delayq.supervisor.web;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.testing.RedisFixture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The dashboard's web server in the test's JVM, on a free loopback port, serving one queue of the
 * shared test Redis, for the tests that drive its API over real HTTP.
 */
record LocalWebServer(WebServer server, String base) implements AutoCloseable {
  /** A supervisor with one worker, nothing to resize or restart. */
  static final Steering ONE_WORKER = new Steering() {
    @Override
    public CompletableFuture<Processes> processes() {
      return CompletableFuture.completedFuture(new Processes(1, 0, List.of()));
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

  static LocalWebServer start(String queue, String token, Steering steering) throws IOException {
    int port = freePort();
    DelayqConfig config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", RedisFixture.get().url(),
        "DELAYQ_QUEUE", queue, "DELAYQ_WEB_PORT", Integer.toString(port)));
    WebServer server = WebServer.startIfEnabled(config, RedisFixture.get().url(), token, steering).orElseThrow();
    return new LocalWebServer(server, "http://127.0.0.1:" + port);
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    server.close();
  }
}
