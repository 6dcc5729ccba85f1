package dev.delayq.redis;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * A job's record as stored in the {@code jobs} hash: a JSON object whose last member is the
 * payload. Two formats are read (docs/redis-layout.md): the compact one every writer writes,
 * {@code {"t":type,"m":maxAttempts,"c":createdAt,"d":dueAt - createdAt,"p":payload}} with
 * {@code "a"} (attempt, absent: 1), {@code "k":1} (the id stays taken) and {@code "h"} (headers,
 * a flat array of names and values) when set, and the full-names one written before it
 * ({@code "type"}, {@code "maxAttempts"}, ..., {@code "payload"}), which any script that changes
 * a record rewrites compact. Optional fields are 0 or null when absent ({@code tickAt}: the tick of the schedule
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
  private static final String COMPACT = "{\"t\":";
  private static final String COMPACT_PAYLOAD = ",\"p\":";

  /**
   * The head of a new record, compact, as enqueue.lua completes it (with createdAt, the due time
   * and the payload): {@code {"t":"order_close","m":5}, then {@code ,"k":1} when the id stays
   * taken, {@code ,"h":[name,value,...]} when there are headers, and {@code extra} (members
   * with their leading comma, such as a tick's schedule). The type is a checked name and the
   * headers are JSON strings, so nothing here can spell the payload's key.
   */
  public static String newHead(String type, int maxAttempts, boolean keepsId, Map<String, String> headers,
      String extra) {
    StringBuilder head = new StringBuilder(64).append(COMPACT).append('"').append(type).append("\",\"m\":")
        .append(maxAttempts);
    if (keepsId) {
      head.append(",\"k\":1");
    }
    if (!headers.isEmpty()) {
      head.append(",\"h\":[");
      boolean first = true;
      for (Map.Entry<String, String> h : new TreeMap<>(headers).entrySet()) {
        head.append(first ? "" : ",").append(jsonString(h.getKey())).append(',').append(jsonString(h.getValue()));
        first = false;
      }
      head.append(']');
    }
    return head.append(extra).toString();
  }

  /**
   * Whether the id of this record stays taken after its job ends ({@code "k":1} in a compact
   * head, {@code "keepId":true} in a full-names one), read from the head's text as
   * include/recordFormat.lua's recordKeepsId reads it.
   */
  public static boolean keepsId(String raw) {
    // in the head only (a payload may hold the same text), found without copying the head: this
    // runs for every claimed job
    int at = payloadAt(raw);
    int headEnd = at < 0 ? raw.length() : at + 1;
    String mark = raw.startsWith(COMPACT) ? ",\"k\":1" : "\"keepId\":true";
    int hit = raw.indexOf(mark);
    return hit >= 0 && hit + mark.length() <= headEnd;
  }

  private static String jsonString(String s) {
    return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + '"';
  }

  /** Thrown for a record that is not a JSON object with a type and a payload. */
  public static final class MalformedRecordException extends Exception {
    MalformedRecordException(String message) {
      super(message);
    }
  }

  /**
   * Reads a record, in either format. The payload is taken as the exact text it was stored with
   * (the record's last member: inside a JSON string every quote is escaped, and the compact head
   * holds no object, so the first payload key starts it), and only the small head before it is
   * parsed; the payload itself is checked to be JSON when the handler reads it.
   */
  public static JobRecord parse(String id, String raw) throws MalformedRecordException {
    String key = payloadKey(raw);
    int at = raw.indexOf(key);
    if (!raw.startsWith("{") || at < 0 || !raw.endsWith("}") || at + key.length() >= raw.length() - 1) {
      throw new MalformedRecordException("record of " + id + " is not a JSON object with a type and a payload");
    }
    String payload = raw.substring(at + key.length(), raw.length() - 1).strip();
    String type = null;
    int attempt = 1;
    int maxAttempts = 1;
    long createdAt = 0;
    long dueAt = 0;
    Long dueAfterCreated = null;
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
          case "t", "type" -> type = value == JsonToken.VALUE_STRING ? p.getText() : null;
          case "a", "attempt" -> attempt = p.getValueAsInt(1);
          case "m", "maxAttempts" -> maxAttempts = p.getValueAsInt(1);
          case "c", "createdAt" -> createdAt = p.getValueAsLong(0);
          case "d" -> dueAfterCreated = p.getValueAsLong(0);
          case "dueAt" -> dueAt = p.getValueAsLong(0);
          case "lastError" -> lastError = value == JsonToken.VALUE_NULL ? null : p.getValueAsString();
          case "lost" -> lost = p.getValueAsInt(0);
          case "deadAt" -> deadAt = p.getValueAsLong(0);
          case "tickAt" -> tickAt = p.getValueAsLong(0);
          case "heldAt" -> heldAt = p.getValueAsLong(0);
          case "headers" -> headers = readHeaders(p, value, id, false);
          case "h" -> headers = readHeaders(p, value, id, true);
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
    if (dueAfterCreated != null) {
      dueAt = createdAt + dueAfterCreated;
    }
    return new JobRecord(id, type, attempt, maxAttempts, createdAt, dueAt, lastError, lost, deadAt, payload,
        headers, tickAt, heldAt);
  }

  /** The payload's JSON text of a record in either format, as stored, or null when it has none. */
  public static String payloadOf(String raw) {
    int at = payloadAt(raw);
    return at < 0 || !raw.endsWith("}") ? null : raw.substring(at + payloadKey(raw).length(), raw.length() - 1);
  }

  /** The record without its payload (its head, closed), or the whole text when it has none. */
  public static String headOf(String raw) {
    int at = payloadAt(raw);
    return at < 0 ? raw : raw.substring(0, at) + "}";
  }

  private static String payloadKey(String raw) {
    return raw.startsWith(COMPACT) ? COMPACT_PAYLOAD : PAYLOAD;
  }

  /** Where the payload member starts (its comma), or -1. */
  private static int payloadAt(String raw) {
    return raw.indexOf(payloadKey(raw));
  }

  /**
   * Headers: an object of strings ({@code headers}, full names) or a flat array of names and
   * values ({@code h}, compact); anything else there makes the record malformed, naming it.
   */
  private static Map<String, String> readHeaders(JsonParser p, JsonToken value, String id, boolean flat)
      throws IOException, MalformedRecordException {
    if (value != (flat ? JsonToken.START_ARRAY : JsonToken.START_OBJECT)) {
      throw new MalformedRecordException("record of " + id + (flat ? ": h (headers) is not an array"
          : ": headers is not an object"));
    }
    Map<String, String> headers = new TreeMap<>();
    for (JsonToken t = p.nextToken(); t == (flat ? JsonToken.VALUE_STRING : JsonToken.FIELD_NAME); t = p.nextToken()) {
      String name = flat ? p.getText() : p.currentName();
      if (p.nextToken() != JsonToken.VALUE_STRING) {
        throw new MalformedRecordException("record of " + id + ": header '" + name + "' is not a string");
      }
      headers.put(name, p.getText());
    }
    if (p.currentToken() != (flat ? JsonToken.END_ARRAY : JsonToken.END_OBJECT)) {
      throw new MalformedRecordException("record of " + id + ": headers hold a value that is not a string");
    }
    return headers;
  }
}
