package dev.delayq;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;

/**
 * What a payload may hold beyond being JSON, checked at enqueue and again by the worker before a
 * handler sees it (another client may have written the record past the producer): nesting at
 * most {@value #MAX_DEPTH} deep, at most {@value #MAX_TOKENS} JSON tokens (a payload under the
 * default 1 MiB limit never has more), and no member named like a type marker of a polymorphic
 * deserializer ({@code @class}, {@code @type}, {@code @c}): payloads are plain data, and refusing
 * the marker keeps a gadget chain out of any other consumer that might read them with default
 * typing. Checked by a streaming parser, so a hostile payload costs no tree in memory.
 */
public final class PayloadRules {
  public static final int MAX_DEPTH = 1000;
  public static final long MAX_TOKENS = 1_000_000;
  private static final Set<String> TYPE_MARKERS = Set.of("@class", "@type", "@c");

  /** A JSON factory whose parsers enforce the depth and token limits. */
  public static final JsonFactory FACTORY = JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).maxTokenCount(MAX_TOKENS).build())
      .build();

  private PayloadRules() {}

  /** Why {@code json} is refused, or empty when it is one JSON value within the rules. */
  public static Optional<String> whyRefused(String json) {
    try (JsonParser p = FACTORY.createParser(json)) {
      if (p.nextToken() == null) {
        return Optional.of("it is empty");
      }
      int depth = 0;
      do {
        JsonToken t = p.currentToken();
        Optional<String> marker = typeMarker(p);
        if (marker.isPresent()) {
          return marker;
        }
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
          depth++;
        } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
          depth--;
        }
      } while (depth > 0 && p.nextToken() != null);
      if (p.nextToken() != null) {
        return Optional.of("more text after the value");
      }
      return Optional.empty();
    } catch (JsonProcessingException e) {
      return Optional.of(limitOrSyntax(e));
    } catch (IOException e) {
      return Optional.of(e.getMessage());
    }
  }

  /** A member named like a type marker at the parser's position, said as a reason. */
  static Optional<String> typeMarker(JsonParser p) throws IOException {
    if (p.currentToken() == JsonToken.FIELD_NAME && TYPE_MARKERS.contains(p.currentName())) {
      return Optional.of("it has a member \"" + p.currentName() + "\", a class-name marker of polymorphic "
          + "deserializers; payloads are plain JSON and name no class");
    }
    return Optional.empty();
  }

  /** The reason of a parse failure: the limit it hit in delayq's words, else the syntax error. */
  static String limitOrSyntax(JsonProcessingException e) {
    String m = e.getOriginalMessage();
    if (m.contains("nesting depth")) {
      return "it nests deeper than " + MAX_DEPTH + " levels";
    }
    if (m.contains("Token count")) {
      return "it has more than " + MAX_TOKENS + " JSON tokens";
    }
    return "not JSON: " + m;
  }
}
