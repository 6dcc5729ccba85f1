package dev.delayq.supervisor.web;

import com.sun.net.httpserver.Headers;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;

/**
 * Decides whether a request may be served, before any handler runs. On loopback it answers only
 * to loopback host names, so a page on another site cannot reach it by DNS rebinding. The API
 * (the dashboard's reads, which show payloads and errors, and its actions) needs the token,
 * on loopback too, since every local user reaches a loopback port; an action or an API read
 * must also come from this server's own page, not from another origin (CSRF). {@code /metrics}
 * and the page's static files stay open: they hold no job data and change nothing.
 */
final class Guard {
  /** Why a request is refused, with its HTTP status. */
  record Refusal(int status, String message) {}

  private final byte[] token;
  private final boolean loopback;

  Guard(String token, boolean loopback) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("the dashboard needs a token");
    }
    this.token = ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
    this.loopback = loopback;
  }

  /** Null when the request may go on; {@code api}: the path is under /api/. */
  Refusal check(String method, boolean api, Headers headers) {
    String host = headers.getFirst("Host");
    if (loopback && host != null && !isLoopbackHost(host)) {
      return new Refusal(403, "Host '" + host + "' is not this server's: on loopback it answers to "
          + "localhost, 127.0.0.1 and [::1] only");
    }
    boolean read = method.equals("GET") || method.equals("HEAD");
    if (read && !api) {
      return null;
    }
    String origin = headers.getFirst("Origin");
    if (origin != null && (host == null || !origin.equalsIgnoreCase("http://" + host))) {
      return new Refusal(403, "cross-origin request refused: Origin " + origin + " is not this server");
    }
    String auth = headers.getFirst("Authorization");
    byte[] given = auth == null ? new byte[0] : auth.trim().getBytes(StandardCharsets.UTF_8);
    if (!MessageDigest.isEqual(given, token)) {
      return new Refusal(401, auth == null
          ? "this needs the token: Authorization: Bearer <token of run/web.token>; "
              + "`bin/delayq-supervisor status` prints the dashboard's URL with it"
          : "wrong token");
    }
    return null;
  }

  /** "localhost", "127.0.0.1:6391", "[::1]:6391" and the like. */
  static boolean isLoopbackHost(String hostHeader) {
    String h = hostHeader.trim().toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int close = h.indexOf(']');
      return close > 0 && h.substring(1, close).equals("::1") && portOnly(h.substring(close + 1));
    }
    int colon = h.indexOf(':');
    String name = colon < 0 ? h : h.substring(0, colon);
    return (name.equals("localhost") || name.matches("127(\\.\\d{1,3}){3}"))
        && portOnly(colon < 0 ? "" : h.substring(colon));
  }

  private static boolean portOnly(String rest) {
    return rest.isEmpty() || rest.matches(":\\d{1,5}");
  }
}
