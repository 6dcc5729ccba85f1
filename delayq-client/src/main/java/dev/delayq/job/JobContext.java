package dev.delayq.job;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * One delivery of a job, as its handler sees it. Immutable; safe to hand to other threads.
 * The payload is plain JSON: no class named by a payload is ever loaded.
 */
public final class JobContext {
  private static final ObjectMapper JSON = new ObjectMapper(dev.delayq.PayloadRules.FACTORY.copy())
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /**
   * A copy of the mapper {@link #payloadAs} binds with (delayq's JSON limits, unknown properties
   * ignored), for a binding of the payload made elsewhere (the Spring starter's handler methods).
   */
  public static ObjectMapper payloadMapper() {
    return JSON.copy();
  }

  private final String id;
  private final String type;
  private final String payloadJson;
  private final int attempt;
  private final int maxAttempts;
  private final Instant createdAt;
  private final Instant dueAt;
  private final Map<String, String> headers;
  private final BooleanSupplier cancelled;
  private final Instant tickAt;
  /** The batch this job belongs to, or null. */
  private final String batchId;
  /** The jobs this job waited for, in the order it named them. */
  private final java.util.List<String> waitedFor;
  /** Their results as kept when this run started: id -> JSON text ("" when one ended without a result). */
  private final Map<String, String> results;

  /**
   * The one way to make a context: the worker's, and a handler's unit test's.
   * {@code headers}: null for none. {@code cancelled}: whether a cancel of this run was asked for
   * (the worker's flag; {@code () -> false} outside a worker). {@code tickAt}: the schedule tick
   * that created this job, or null for a job no schedule created.
   */
  public JobContext(String id, String type, String payloadJson, int attempt, int maxAttempts,
      Instant createdAt, Instant dueAt, Map<String, String> headers, BooleanSupplier cancelled, Instant tickAt) {
    this.tickAt = tickAt;
    this.cancelled = Objects.requireNonNull(cancelled, "cancelled");
    this.id = Objects.requireNonNull(id, "id");
    this.type = Objects.requireNonNull(type, "type");
    this.payloadJson = Objects.requireNonNull(payloadJson, "payloadJson");
    this.attempt = attempt;
    this.maxAttempts = maxAttempts;
    this.createdAt = createdAt;
    this.dueAt = dueAt;
    this.headers = headers == null ? Map.of() : Map.copyOf(headers);
    this.batchId = null;
    this.waitedFor = java.util.List.of();
    this.results = Map.of();
  }

  private JobContext(JobContext c, String batchId, java.util.List<String> waitedFor, Map<String, String> results) {
    this.id = c.id;
    this.type = c.type;
    this.payloadJson = c.payloadJson;
    this.attempt = c.attempt;
    this.maxAttempts = c.maxAttempts;
    this.createdAt = c.createdAt;
    this.dueAt = c.dueAt;
    this.headers = c.headers;
    this.cancelled = c.cancelled;
    this.tickAt = c.tickAt;
    this.batchId = batchId;
    this.waitedFor = java.util.List.copyOf(waitedFor);
    this.results = Map.copyOf(results);
  }

  /**
   * This context with the job's part in a workflow: its batch ({@code null} for none), the jobs it
   * waited for, and their results as kept (id -> JSON text, "" for one that ended without a
   * result; an id absent: its result is no longer kept). The worker's, and a handler's unit test's.
   */
  public JobContext inWorkflow(String batchId, java.util.List<String> waitedFor, Map<String, String> results) {
    return new JobContext(this, batchId, waitedFor, results);
  }

  /** The batch this job belongs to, if any (a running job may add more jobs to it). */
  public Optional<String> batchId() {
    return Optional.ofNullable(batchId);
  }

  /** The jobs this job waited for before it fell due (none for a job that waited for none). */
  public java.util.List<String> waitedFor() {
    return waitedFor;
  }

  /**
   * The result of job {@code id}, one this job waited for, as a Jackson tree; empty when it ended
   * without one, or its result is no longer kept (queue.idRetention passed).
   */
  public Optional<JsonNode> resultOf(String id) {
    String json = results.get(id);
    if (json == null || json.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(JSON.readTree(json));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("result of job " + id + " is not JSON", e);
    }
  }

  /** {@link #resultOf(String)} bound to {@code type} by the mapper {@link #payloadAs} uses. */
  public <T> Optional<T> resultOf(String id, Class<T> type) {
    return resultOf(id).map(tree -> {
      try {
        return JSON.treeToValue(tree, type);
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("result of job " + id + " does not bind to " + type.getName()
            + ": " + e.getOriginalMessage(), e);
      }
    });
  }

  public String id() {
    return id;
  }

  public String type() {
    return type;
  }

  /** The payload as the JSON text it was enqueued with. */
  public String payloadJson() {
    return payloadJson;
  }

  /** The payload as a Jackson tree. */
  public JsonNode payload() {
    try {
      return JSON.readTree(payloadJson);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("payload of job " + id + " is not JSON", e);
    }
  }

  /** The payload bound to {@code type} (unknown JSON properties are ignored). */
  public <T> T payloadAs(Class<T> type) {
    try {
      return JSON.readValue(payloadJson, type);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "payload of job " + id + " does not bind to " + type.getSimpleName() + ": "
              + e.getOriginalMessage(), e);
    }
  }

  /** 1 on the first delivery, 2 on the first retry, and so on. */
  public int attempt() {
    return attempt;
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  /** True when a failure now dead-letters the job instead of retrying it. */
  public boolean isLastAttempt() {
    return attempt >= maxAttempts;
  }

  public Instant createdAt() {
    return createdAt;
  }

  /** When the job was due; its start minus this is its lateness. */
  public Instant dueAt() {
    return dueAt;
  }

  /**
   * The job's headers: the strings its producer set with {@link dev.delayq.JobOptions#header},
   * and {@code traceparent} when it enqueued inside a traced span. Empty for a job without any.
   */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * The tick time of the schedule that created this job ({@code delayq schedule upsert}), the
   * moment the cron or interval named, whatever the job's lateness or retries since; for the one
   * job run for missed ticks, the latest of them. Empty for a job a producer enqueued.
   */
  public Optional<Instant> tickAt() {
    return Optional.ofNullable(tickAt);
  }

  /**
   * True once an operator cancelled this running job ({@code delayq cancel ID}). The handler's
   * thread is interrupted at the same moment; a handler that loops should check this (or the
   * interrupt) and return. Whatever it then returns or throws, the job ends as cancelled: it is
   * not retried. Safe to call from any thread.
   */
  public boolean isCancelled() {
    return cancelled.getAsBoolean();
  }

  @Override
  public String toString() {
    return type + " " + id + " (attempt " + attempt + "/" + maxAttempts + ")";
  }
}
