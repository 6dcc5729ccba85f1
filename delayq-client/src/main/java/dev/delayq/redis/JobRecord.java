package dev.delayq.redis;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * A job's record as stored in the {@code jobs} hash: a JSON object whose last member is the
 * payload. Optional fields are 0 or null when absent ({@code tickAt}: the tick of the schedule
 * that created the job, epoch ms; 0 for a job no schedule created). {@code heldAt}: when a pause
 * held the job (flow control), so its lateness is counted apart.
 */
public record JobRecord(String id, String type, int attempt, int maxAttempts, long createdAt,
    long dueAt, String lastError, int lost, long deadAt, String payloadJson, Map<String, String> headers,
    long tickAt, long heldAt) {

  public JobRecord {
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }

  /** A record without headers, as every record stored before headers existed. */
  public JobRecord(String id, String type, int attempt, int maxAttempts, long createdAt,
      long dueAt, String lastError, int lost, long deadAt, String payloadJson) {
    this(id, type, attempt, maxAttempts, createdAt, dueAt, lastError, lost, deadAt, payloadJson, Map.of(), 0, 0);
  }

  /** A record no schedule created and no pause held. */
  public JobRecord(String id, String type, int attempt, int maxAttempts, long createdAt,
      long dueAt, String lastError, int lost, long deadAt, String payloadJson, Map<String, String> headers) {
    this(id, type, attempt, maxAttempts, createdAt, dueAt, lastError, lost, deadAt, payloadJson, headers, 0, 0);
  }

  private static final JsonFactory JSON = new JsonFactory();
  private static final String PAYLOAD = ",\"payload\":";

  /** Thrown for a record that is not a JSON object with a type and a payload. */
  public static final class MalformedRecordException extends Exception {
    MalformedRecordException(String message) {
      super(message);
    }
  }

  /**
   * Reads a record. The payload is taken as the exact text it was stored with (the record's
   * last member: inside a JSON string every quote is escaped, so the first ',"payload":' starts
   * it), and only the small head before it is parsed; the payload itself is checked to be JSON
   * when the handler reads it.
   */
  public static JobRecord parse(String id, String raw) throws MalformedRecordException {
    int at = raw.indexOf(PAYLOAD);
    if (!raw.startsWith("{") || at < 0 || !raw.endsWith("}") || at + PAYLOAD.length() >= raw.length() - 1) {
      throw new MalformedRecordException("record of " + id + " is not a JSON object with a type and a payload");
    }
    String payload = raw.substring(at + PAYLOAD.length(), raw.length() - 1).strip();
    String type = null;
    int attempt = 1;
    int maxAttempts = 1;
    long createdAt = 0;
    long dueAt = 0;
    String lastError = null;
    int lost = 0;
    long deadAt = 0;
    long tickAt = 0;
    long heldAt = 0;
    Map<String, String> headers = Map.of();
    try (JsonParser p = JSON.createParser(raw.substring(0, at) + "}")) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new MalformedRecordException("record of " + id + " is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "type" -> type = value == JsonToken.VALUE_STRING ? p.getText() : null;
          case "attempt" -> attempt = p.getValueAsInt(1);
          case "maxAttempts" -> maxAttempts = p.getValueAsInt(1);
          case "createdAt" -> createdAt = p.getValueAsLong(0);
          case "dueAt" -> dueAt = p.getValueAsLong(0);
          case "lastError" -> lastError = value == JsonToken.VALUE_NULL ? null : p.getValueAsString();
          case "lost" -> lost = p.getValueAsInt(0);
          case "deadAt" -> deadAt = p.getValueAsLong(0);
          case "tickAt" -> tickAt = p.getValueAsLong(0);
          case "heldAt" -> heldAt = p.getValueAsLong(0);
          case "headers" -> headers = readHeaders(p, value, id);
          default -> p.skipChildren();
        }
      }
    } catch (IOException e) {
      throw new MalformedRecordException("record of " + id + " is not JSON: "
          + e.getMessage().split("\n")[0]);
    }
    if (type == null) {
      throw new MalformedRecordException("record of " + id + " has no type");
    }
    return new JobRecord(id, type, attempt, maxAttempts, createdAt, dueAt, lastError, lost, deadAt, payload,
        headers, tickAt, heldAt);
  }

  /** An object of strings; anything else there makes the record malformed, naming the header. */
  private static Map<String, String> readHeaders(JsonParser p, JsonToken value, String id)
      throws IOException, MalformedRecordException {
    if (value != JsonToken.START_OBJECT) {
      throw new MalformedRecordException("record of " + id + ": headers is not an object");
    }
    Map<String, String> headers = new TreeMap<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      if (p.nextToken() != JsonToken.VALUE_STRING) {
        throw new MalformedRecordException("record of " + id + ": header '" + name + "' is not a string");
      }
      headers.put(name, p.getText());
    }
    return headers;
  }
}
