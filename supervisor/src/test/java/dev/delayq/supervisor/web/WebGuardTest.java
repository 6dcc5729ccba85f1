package dev.delayq.supervisor.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.Headers;
import java.util.Arrays;
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

  private static final String[] TOKEN = {"Authorization", "Bearer secret"};

  private static String[] with(String[] a, String... b) {
    String[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void onLoopbackTooTheApiNeedsTheTokenAndThePageAndMetricsDoNot() {
    Guard g = new Guard("secret", true);
    Guard.Refusal none = g.check("POST", true, headers("Host", "127.0.0.1:6391"));
    assertEquals(401, none.status(), "curl sends no Origin: an action without the token is refused");
    assertTrue(none.message().contains("run/web.token"), none.message());
    assertEquals(401, g.check("GET", true, headers("Host", "127.0.0.1:6391")).status(),
        "API reads show payloads and errors");
    assertNull(g.check("GET", false, headers("Host", "127.0.0.1:6391")), "the page and /metrics stay open");
    assertNull(g.check("GET", true, headers(with(TOKEN, "Host", "localhost:6391"))));
    assertNull(g.check("POST", true, headers(with(TOKEN, "Host", "127.0.0.1:6391", "Origin", "http://127.0.0.1:6391"))));
  }

  @Test
  void aWrongOrPartialTokenIsRefused() {
    Guard g = new Guard("secret", true);
    for (String auth : new String[] {"Bearer secre", "Bearer secret2", "secret", "Bearer ", "Basic c2VjcmV0"}) {
      Guard.Refusal r = g.check("POST", true, headers("Host", "127.0.0.1:6391", "Authorization", auth));
      assertEquals(401, r.status(), auth);
      assertEquals("wrong token", r.message());
    }
  }

  @Test
  void anApiRequestFromAnotherOriginIsRefusedEvenWithTheToken() {
    Guard g = new Guard("secret", true);
    Guard.Refusal r = g.check("POST", true, headers(with(TOKEN, "Host", "127.0.0.1:6391", "Origin", "http://evil.example")));
    assertEquals(403, r.status());
    assertTrue(r.message().contains("cross-origin"), r.message());
    assertEquals(403, g.check("POST", true, headers(with(TOKEN, "Host", "127.0.0.1:6391", "Origin", "null"))).status());
    assertEquals(403, g.check("POST", true,
        headers(with(TOKEN, "Host", "127.0.0.1:6391", "Origin", "http://127.0.0.1:6392"))).status());
    assertEquals(403, g.check("GET", true,
        headers(with(TOKEN, "Host", "127.0.0.1:6391", "Origin", "http://evil.example"))).status());
  }

  @Test
  void foreignHostNameOnLoopbackIsRefusedEvenForReads() {
    Guard g = new Guard("secret", true);
    Guard.Refusal r = g.check("GET", false, headers("Host", "rebind.evil.example:6391"));
    assertEquals(403, r.status());
    assertTrue(r.message().contains("rebind.evil.example"), r.message());
  }

  @Test
  void anyHostNameIsServedWhenBoundBeyondLoopback() {
    Guard g = new Guard("secret", false);
    assertNull(g.check("GET", false, headers("Host", "queue-host.lan:6391")));
    assertNull(g.check("GET", true, headers(with(TOKEN, "Host", "queue-host.lan:6391"))));
  }

  @Test
  void aGuardWithoutATokenCannotBeMade() {
    assertEquals("the dashboard needs a token",
        assertThrows(IllegalArgumentException.class, () -> new Guard("", true)).getMessage());
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
