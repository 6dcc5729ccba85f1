package dev.delayq.supervisor.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Small helpers over the JDK's HttpExchange: JSON in and out, paths, queries, safe headers. */
final class Http {
  static final ObjectMapper JSON = new ObjectMapper();
  static final int MAX_BODY = 64 * 1024;

  /** An answer other than 200, with the message the client shows. */
  static final class Failure extends RuntimeException {
    final int status;

    Failure(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  private Http() {}

  /** The path's segments, each percent-decoded ("/api/dead/a%2Fb/retry" -> api, dead, a/b, retry). */
  static List<String> segments(HttpExchange ex) {
    List<String> out = new ArrayList<>();
    for (String raw : ex.getRequestURI().getRawPath().split("/")) {
      if (!raw.isEmpty()) {
        out.add(URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  static Map<String, String> query(HttpExchange ex) {
    Map<String, String> out = new LinkedHashMap<>();
    String raw = ex.getRequestURI().getRawQuery();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        String k = eq < 0 ? pair : pair.substring(0, eq);
        String v = eq < 0 ? "" : pair.substring(eq + 1);
        out.put(URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  /** An integer query parameter within [min, max], or {@code fallback} when absent. */
  static int intParam(Map<String, String> query, String name, int fallback, int min, int max) {
    String v = query.get(name);
    if (v == null || v.isEmpty()) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(v);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new Failure(400, name + " must be a whole number from " + min + " to " + max + ", got '" + v + "'");
  }

  /** The request body as JSON; an empty body is an empty object. */
  static JsonNode body(HttpExchange ex) throws IOException {
    byte[] bytes = readAtMost(ex.getRequestBody(), MAX_BODY);
    if (bytes.length == 0) {
      return JSON.createObjectNode();
    }
    try {
      JsonNode node = JSON.readTree(bytes);
      if (node == null || !node.isObject()) {
        throw new Failure(400, "the body must be a JSON object");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new Failure(400, "the body is not JSON: " + e.getOriginalMessage());
    }
  }

  private static byte[] readAtMost(InputStream in, int limit) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    int n;
    while ((n = in.read(buf)) > 0) {
      out.write(buf, 0, n);
      if (out.size() > limit) {
        throw new Failure(413, "the body is larger than " + limit + " bytes");
      }
    }
    return out.toByteArray();
  }

  /**
   * Waits for the supervisor's control thread to answer: IllegalArgumentException becomes 404,
   * any other refusal 409, no answer within 10 s 503.
   */
  static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new Failure(cause instanceof IllegalArgumentException ? 404 : 409, cause.getMessage());
    } catch (TimeoutException e) {
      throw new Failure(503, "the supervisor did not answer within 10s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Failure(503, "interrupted");
    }
  }

  static ObjectNode ok() {
    return JSON.createObjectNode().put("ok", true);
  }

  static void json(HttpExchange ex, int status, Object body) throws IOException {
    send(ex, status, "application/json; charset=utf-8", JSON.writeValueAsBytes(body));
  }

  static void error(HttpExchange ex, int status, String message) throws IOException {
    json(ex, status, JSON.createObjectNode().put("ok", false).put("error", message));
  }

  static void send(HttpExchange ex, int status, String contentType, byte[] body) throws IOException {
    Headers h = ex.getResponseHeaders();
    h.set("Content-Type", contentType);
    secure(h);
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(status, head ? -1 : body.length == 0 ? -1 : body.length);
    if (!head && body.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
    ex.close();
  }

  /**
   * Headers on every answer: no caching of live data, no sniffing, no framing by other pages
   * (clickjacking), and only this server's own scripts, styles and connections.
   */
  static void secure(Headers h) {
    h.set("Cache-Control", "no-store");
    h.set("X-Content-Type-Options", "nosniff");
    h.set("X-Frame-Options", "DENY");
    h.set("Referrer-Policy", "no-referrer");
    h.set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; "
        + "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
  }
}
