package dev.delayq.supervisor.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.Headers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WebGuardTest {
  private static Headers headers(String... pairs) {
    Headers h = new Headers();
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      h.add(pairs[i], pairs[i + 1]);
    }
    return h;
  }

  @Test
  void readsAndSameOriginActionsPassOnLoopbackWithoutToken() {
    Guard g = new Guard("", true);
    assertNull(g.check("GET", headers("Host", "127.0.0.1:6391")));
    assertNull(g.check("POST", headers("Host", "127.0.0.1:6391", "Origin", "http://127.0.0.1:6391")));
    assertNull(g.check("POST", headers("Host", "localhost:6391")), "curl sends no Origin");
    assertFalse(g.tokenRequired());
  }

  @Test
  void actionFromAnotherOriginIsRefused() {
    Guard g = new Guard("", true);
    Guard.Refusal r = g.check("POST", headers("Host", "127.0.0.1:6391", "Origin", "http://evil.example"));
    assertEquals(403, r.status());
    assertTrue(r.message().contains("cross-origin"), r.message());
    assertEquals(403, g.check("POST", headers("Host", "127.0.0.1:6391", "Origin", "null")).status());
    assertEquals(403, g.check("POST", headers("Host", "127.0.0.1:6391", "Origin", "http://127.0.0.1:6392")).status());
    assertNull(g.check("GET", headers("Host", "127.0.0.1:6391", "Origin", "http://evil.example")),
        "a cross-origin read gets no CORS header, so the browser hides the answer");
  }

  @Test
  void foreignHostNameOnLoopbackIsRefusedEvenForReads() {
    Guard g = new Guard("", true);
    Guard.Refusal r = g.check("GET", headers("Host", "rebind.evil.example:6391"));
    assertEquals(403, r.status());
    assertTrue(r.message().contains("rebind.evil.example"), r.message());
  }

  @Test
  void anyHostNameIsServedWhenBoundBeyondLoopback() {
    Guard g = new Guard("secret", false);
    assertNull(g.check("GET", headers("Host", "queue-host.lan:6391")));
  }

  @Test
  void actionsNeedTheExactTokenWhenOneIsSet() {
    Guard g = new Guard("secret", false);
    assertTrue(g.tokenRequired());
    assertEquals(401, g.check("POST", headers("Host", "q:6391")).status());
    assertEquals(401, g.check("POST", headers("Host", "q:6391", "Authorization", "Bearer secre")).status());
    assertEquals(401, g.check("POST", headers("Host", "q:6391", "Authorization", "Bearer secret2")).status());
    assertEquals(401, g.check("POST", headers("Host", "q:6391", "Authorization", "secret")).status());
    assertNull(g.check("POST", headers("Host", "q:6391", "Authorization", "Bearer secret")));
    assertNull(g.check("GET", headers("Host", "q:6391")), "reads stay open");
    assertEquals(403, g.check("POST", headers("Host", "q:6391", "Origin", "http://evil.example",
        "Authorization", "Bearer secret")).status(), "a token does not excuse another origin");
  }

  @ParameterizedTest
  @ValueSource(strings = {"localhost", "localhost:6391", "127.0.0.1", "127.0.0.1:80", "127.1.2.3:6391",
      "[::1]", "[::1]:6391", "LOCALHOST:6391"})
  void loopbackHostNames(String host) {
    assertTrue(Guard.isLoopbackHost(host), host);
  }

  @ParameterizedTest
  @ValueSource(strings = {"evil.example", "localhost.evil.example", "127.0.0.1.nip.io:6391", "10.0.0.1:6391",
      "[::2]:6391", "localhost:x", "[::1]x", "0.0.0.0:6391"})
  void otherHostNames(String host) {
    assertFalse(Guard.isLoopbackHost(host), host);
  }
}
