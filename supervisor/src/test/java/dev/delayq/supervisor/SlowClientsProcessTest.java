package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that open a connection to a real supervisor's web port, send half a request (or nothing)
 * and stall: with 100 of them holding connections, /metrics and the dashboard's page still answer
 * at once, and the stalled connections are closed once their request's deadline has passed. Bound
 * for other hosts, one peer holds at most its share of the port's connections.
 */
class SlowClientsProcessTest {
  private static final int SLOW = 100;

  @TempDir
  Path home;
  SupervisorProcess sup;
  final List<Socket> slow = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (Socket s : slow) {
      s.close();
    }
    if (sup != null) {
      sup.close();
    }
  }

  @Test
  void metricsAndThePageAnswerBesideAHundredHalfSentRequestsWhichAreClosedAfterTheDeadline() throws Exception {
    SupervisorProcess.requireChildJars();
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    env.put("DELAYQ_WEB_TOKEN", "slow-test-token");
    sup = SupervisorProcess.start(home, SupervisorProcess.ONE_QUICK_WORKER, env);
    WebClient web = new WebClient(sup.webUrl(), "slow-test-token");
    await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(web::up);
    int port = Integer.parseInt(env.get("DELAYQ_WEB_PORT"));
    assertEquals(200, web.get("/metrics").status()); // its first scrape loads its classes

    long opened = System.nanoTime();
    for (int i = 0; i < SLOW; i++) {
      Socket s = new Socket();
      s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
      // half a request line, or a request line and half its headers, and then nothing; a few send
      // nothing at all
      String half = i % 10 == 9 ? "" : i % 2 == 0 ? "GET /metr" : "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Wait: ";
      s.getOutputStream().write(half.getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      slow.add(s);
    }
    Thread.sleep(300); // the server has seen them all begin

    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    for (String path : List.of("/metrics", "/", "/metrics")) {
      long asked = System.nanoTime();
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(sup.webUrl() + path))
          .timeout(Duration.ofSeconds(3)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), path);
      assertTrue(Duration.ofNanos(System.nanoTime() - asked).toMillis() < 3_000, path + " answered late");
    }
    assertTrue(web.get("/api/status").status() == 200, "the API answers too");

    // each stalled connection is closed by the server: its request's 5 s deadline, checked each second
    for (Socket s : slow) {
      long left = Duration.ofSeconds(12).toMillis() - Duration.ofNanos(System.nanoTime() - opened).toMillis();
      assertTrue(left > 0, "stalled connections still open 12 s after they began");
      s.setSoTimeout((int) left);
      assertTrue(closedByServer(s), "a stalled connection was not closed");
    }
  }

  @Test
  void boundForOtherHostsEachPeerHoldsItsShareAndTheOthersStillGetAnswers() throws Exception {
    SupervisorProcess.requireChildJars();
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    env.put("DELAYQ_WEB_TOKEN", "slow-test-token");
    env.put("DELAYQ_WEB_BIND", "0.0.0.0");
    sup = SupervisorProcess.start(home, SupervisorProcess.ONE_QUICK_WORKER, env);
    WebClient web = new WebClient(sup.webUrl(), "slow-test-token");
    await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(web::up);
    int port = Integer.parseInt(env.get("DELAYQ_WEB_PORT"));
    assertEquals(200, web.get("/metrics").status());

    // one peer, 127.0.0.2, opens 100 connections and stalls them all
    InetAddress greedy = InetAddress.getByName("127.0.0.2");
    for (int i = 0; i < SLOW; i++) {
      Socket s = new Socket();
      s.bind(new InetSocketAddress(greedy, 0));
      s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
      s.getOutputStream().write("GET /metr".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      slow.add(s);
    }
    // those past its share are closed at once; its share stays open until the request deadline (5 s)
    Thread.sleep(1_000);
    int closedAtOnce = 0;
    for (Socket s : slow) {
      s.setSoTimeout(20);
      if (closedByServer(s)) {
        closedAtOnce++;
      }
    }
    assertEquals(SLOW - PEER_SHARE, closedAtOnce, "connections of one peer closed at once");

    // another peer (127.0.0.1) is answered beside them, the API included, through the gate
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    for (String path : List.of("/metrics", "/")) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(sup.webUrl() + path))
          .timeout(Duration.ofSeconds(3)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), path);
    }
    assertEquals(200, web.get("/api/status").status(), "the API answers through the gate");
  }

  /** The connections one peer may hold when the port is bound for other hosts (PeerGate). */
  private static final int PEER_SHARE = 32;

  /** True once the server closed the connection (end of stream or reset); false on a read timeout. */
  private static boolean closedByServer(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    try {
      while (true) {
        if (in.read() < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }
}
