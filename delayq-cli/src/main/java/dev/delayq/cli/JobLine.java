package dev.delayq.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.delayq.DelayQueue;
import dev.delayq.DueTime;
import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import dev.delayq.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * One line of a jobs file, {@code {"type":…, "payload":{…}, "delay":"30s"}} (or {@code "at"}
 * with an ISO-8601 instant; optional {@code id} and {@code maxAttempts}), checked in full so a
 * bad line is rejected with its reason before anything is sent.
 */
sealed interface JobLine {
  record Accepted(int lineNo, JobRequest request) implements JobLine {}

  record Rejected(int lineNo, String reason) implements JobLine {}

  Set<String> FIELDS = Set.of("type", "payload", "delay", "at", "id", "maxAttempts");
  // Decimals kept exact, as DelayQueue keeps them: the payload reaches the handler as written.
  ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));

  int lineNo();

  static JobLine parse(int lineNo, String text) {
    try {
      return new Accepted(lineNo, request(text));
    } catch (IllegalArgumentException e) {
      return new Rejected(lineNo, e.getMessage());
    }
  }

  private static JobRequest request(String text) {
    JsonNode node;
    try {
      node = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + Formats.jsonError(e));
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    List<String> unknown = new ArrayList<>();
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        unknown.add(name);
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown field " + String.join(", ", unknown)
          + " (known: type, payload, delay, at, id, maxAttempts)");
    }
    JsonNode type = node.get("type");
    if (type == null || !type.isTextual()) {
      throw new IllegalArgumentException("\"type\" is missing or not a string");
    }
    DelayQueue.checkType(type.asText());
    JsonNode payload = node.has("payload") ? node.get("payload") : JSON.createObjectNode();
    JobOptions options = new JobOptions(text(node, "id"), maxAttempts(node));
    JsonNode delay = node.get("delay");
    JsonNode at = node.get("at");
    if ((delay == null) == (at == null)) {
      throw new IllegalArgumentException(delay == null
          ? "give \"delay\" (e.g. \"30s\") or \"at\" (ISO-8601 with offset)"
          : "give \"delay\" or \"at\", not both");
    }
    if (delay != null) {
      if (!delay.isTextual()) {
        throw new IllegalArgumentException("\"delay\" must be a string such as \"30s\", got " + delay);
      }
      Duration d = Durations.parse(delay.asText());
      return new JobRequest(type.asText(), payload.toString(), d, null, options);
    }
    if (!at.isTextual()) {
      throw new IllegalArgumentException("\"at\" must be an ISO-8601 string, got " + at);
    }
    return new JobRequest(type.asText(), payload.toString(), null,
        DueTime.parse("\"at\"", at.asText()), options);
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException("\"" + field + "\" must be a string, got " + v);
    }
    return v.asText();
  }

  private static Integer maxAttempts(JsonNode node) {
    JsonNode v = node.get("maxAttempts");
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.canConvertToInt() || !v.isIntegralNumber()) {
      throw new IllegalArgumentException("\"maxAttempts\" must be a whole number, got " + v);
    }
    return v.asInt();
  }
}
