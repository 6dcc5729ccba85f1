package dev.delayq;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringWriter;

/**
 * Turns a payload into the compact JSON text stored with the job, and checks it: a String must
 * be JSON (it is re-written compactly token by token, numbers kept exact: a double would round
 * 0.1000000000000000055 and turn 1E+400 into Infinity); any other object is written by Jackson
 * (no default typing, so no class name ever lands in a payload); the size limit is in UTF-8 bytes,
 * and text UTF-8 cannot hold (a lone surrogate) is refused.
 */
final class Payloads {
  private static final JsonFactory FACTORY = PayloadRules.FACTORY;
  /** Writes payloads, and reads results back ({@link JobOutcome}). */
  static final ObjectMapper JSON = new ObjectMapper();

  private final int maxBytes;

  Payloads(int maxBytes) {
    this.maxBytes = maxBytes;
  }

  String toJson(Object payload) {
    String json = payload instanceof String text ? compact(text) : checked(write(payload));
    long bytes = utf8Length(json);
    if (bytes > maxBytes) {
      throw new IllegalArgumentException("payload is " + bytes + " bytes, over the limit of "
          + maxBytes + " bytes (queue.maxPayloadBytes)");
    }
    return json;
  }

  private static String compact(String text) {
    StringWriter out = new StringWriter(text.length());
    try (JsonParser p = FACTORY.createParser(text); JsonGenerator g = FACTORY.createGenerator(out)) {
      if (p.nextToken() == null) {
        throw new IllegalArgumentException("payload is not JSON: it is empty");
      }
      int depth = 0;
      do {
        JsonToken t = p.currentToken();
        java.util.Optional<String> marker = PayloadRules.typeMarker(p);
        if (marker.isPresent()) {
          throw new IllegalArgumentException("payload is refused: " + marker.get());
        }
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
          depth++;
        } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
          depth--;
        }
        g.copyCurrentEventExact(p);
      } while (depth > 0 && p.nextToken() != null);
      if (p.nextToken() != null) {
        throw new IllegalArgumentException("payload is not JSON: more text after the value at "
            + p.currentLocation().getColumnNr());
      }
    } catch (JsonProcessingException e) {
      String why = PayloadRules.limitOrSyntax(e);
      throw new IllegalArgumentException(why.startsWith("not JSON") ? "payload is " + why : "payload is refused: " + why);
    } catch (IOException e) {
      throw new IllegalArgumentException("payload is not JSON: " + e.getMessage());
    }
    return out.toString();
  }

  /** A payload Jackson wrote from an object, held to the same rules as text (a map may hold "@class"). */
  private static String checked(String json) {
    PayloadRules.whyRefused(json).ifPresent(why -> {
      throw new IllegalArgumentException("payload is refused: " + why);
    });
    return json;
  }

  private static String write(Object payload) {
    try {
      return JSON.writeValueAsString(payload);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("payload cannot be written as JSON: " + e.getOriginalMessage());
    }
  }

  static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n++;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isSurrogate(c)) {
        // the size pass is the check pass too: a lone half of a pair would be stored as '?'
        if (!UnicodeText.pairAt(s, i)) {
          throw UnicodeText.loneSurrogate("payload", s, i);
        }
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }
}
