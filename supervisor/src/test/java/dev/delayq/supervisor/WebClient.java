package dev.delayq.supervisor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** Talks HTTP to a test supervisor's web port, as a script or the dashboard would. */
final class WebClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  record Answer(int status, String body, HttpResponse<String> response) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("not JSON (" + status + "): " + body, e);
      }
    }

    Optional<String> header(String name) {
      return response.headers().firstValue(name);
    }
  }

  private final String base;
  private final String token;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** A client that sends no token: what any local user's script could do. */
  WebClient(String base) {
    this(base, null);
  }

  /** A client that sends {@code token} on every request, as the dashboard does. */
  WebClient(String base, String token) {
    this.base = base;
    this.token = token;
  }

  Answer get(String path, String... headers) throws IOException, InterruptedException {
    return send(request(path, headers).GET());
  }

  /** A POST with a JSON body (null: none) and header name/value pairs. */
  Answer post(String path, Object body, String... headers) throws IOException, InterruptedException {
    String text = body == null ? "" : body instanceof String s ? s : JSON.writeValueAsString(body);
    return send(request(path, headers).POST(HttpRequest.BodyPublishers.ofString(text))
        .header("Content-Type", "application/json"));
  }

  Answer send(String method, String path, String... headers) throws IOException, InterruptedException {
    return send(request(path, headers).method(method, HttpRequest.BodyPublishers.noBody()));
  }

  /** True once the port answers at all. */
  boolean up() {
    try {
      get("/api/status");
      return true;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private HttpRequest.Builder request(String path, String... headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return b;
  }

  private Answer send(HttpRequest.Builder b) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body(), r);
  }
}
