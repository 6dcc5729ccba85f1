package dev.delayq.redis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * A job's record as stored in the {@code jobs} hash: a JSON object whose last member is the
 * payload. Optional fields are 0 or null when absent.
 */
public record JobRecord(String id, String type, int attempt, int maxAttempts, long createdAt,
    long dueAt, String lastError, int lost, long deadAt, String payloadJson) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Thrown for a record that is not a JSON object with a type and a payload. */
  public static final class MalformedRecordException extends Exception {
    MalformedRecordException(String message) {
      super(message);
    }
  }

  public static JobRecord parse(String id, String raw) throws MalformedRecordException {
    JsonNode node;
    try {
      node = JSON.readTree(raw);
    } catch (IOException e) {
      throw new MalformedRecordException("record of " + id + " is not JSON: "
          + e.getMessage().split("\n")[0]);
    }
    if (node == null || !node.isObject()) {
      throw new MalformedRecordException("record of " + id + " is not a JSON object");
    }
    JsonNode type = node.get("type");
    JsonNode payload = node.get("payload");
    if (type == null || !type.isTextual() || payload == null) {
      throw new MalformedRecordException("record of " + id + " has no type or no payload");
    }
    return new JobRecord(id, type.asText(), node.path("attempt").asInt(1),
        node.path("maxAttempts").asInt(1), node.path("createdAt").asLong(),
        node.path("dueAt").asLong(), node.hasNonNull("lastError") ? node.get("lastError").asText() : null,
        node.path("lost").asInt(0), node.path("deadAt").asLong(0), payload.toString());
  }
}
