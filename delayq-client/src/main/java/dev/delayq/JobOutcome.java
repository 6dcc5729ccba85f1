package dev.delayq;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Optional;

/**
 * How a job ended and the result its handler gave ({@link DelayQueue#result}), kept with its id
 * for the id retention (24 h when ids are not kept).
 *
 * @param outcome {@code done}, {@code dead} or {@code cancelled}
 * @param json the result as JSON text, null when the handler gave none
 */
public record JobOutcome(String id, String outcome, Instant endedAt, String json) {

  /** The result as a JSON tree; empty when the job gave none. */
  public Optional<JsonNode> value() {
    if (json == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Payloads.JSON.readTree(json));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the result of job " + id + " is not JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** The result read as a {@code type} (with the mapper payloads are written with); null when the job gave none. */
  public <T> T valueAs(Class<T> type) {
    if (json == null) {
      return null;
    }
    try {
      return Payloads.JSON.readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the result of job " + id + " cannot be read as " + type.getSimpleName()
          + ": " + e.getOriginalMessage(), e);
    }
  }
}
