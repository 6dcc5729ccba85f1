package dev.delayq.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import dev.delayq.config.ConfigException;
import dev.delayq.config.DelayqConfig;
import dev.delayq.config.Durations;
import dev.delayq.redis.RedisConnector;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** {@code delayq enqueue}: one job, after a delay or at an instant; prints its id. */
@Command(name = "enqueue", mixinStandardHelpOptions = true,
    description = {"Put one job on the queue; prints its id.",
        "Example: delayq enqueue --type order_close --payload '{\"order_id\":1001}' --delay 30m --id order-1001"})
final class EnqueueCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParentCommand
  DelayqCli parent;

  @Option(names = "--type", required = true, paramLabel = "TYPE", description = "The job type, e.g. order_close.")
  String type;

  @Option(names = "--payload", paramLabel = "JSON", defaultValue = "{}", description = "The payload, JSON (default {}).")
  String payload;

  @ArgGroup(exclusive = true, multiplicity = "1")
  When when;

  static final class When {
    @Option(names = "--delay", paramLabel = "DURATION", description = "Run after this delay: 250ms, 30s, 5m, 2h, 1d.")
    String delay;

    @Option(names = "--at", paramLabel = "ISO-8601", description = "Run at this instant, e.g. 2026-12-01T10:00:00+08:00.")
    String at;
  }

  @Option(names = "--id", paramLabel = "ID",
      description = "Your own job id; a second enqueue with the same id changes nothing (idempotent).")
  String id;

  @Option(names = "--max-attempts", paramLabel = "N", description = "Attempts before the job goes to dead (default: retry.maxAttempts).")
  Integer maxAttempts;

  @Override
  public Integer call() {
    DelayqConfig config;
    JobRequest request;
    try {
      config = parent.loadConfig();
      checkJson(payload);
      JobOptions options = new JobOptions(id, maxAttempts);
      request = when.delay != null
          ? new JobRequest(type, payload, Durations.parse(when.delay), null, options)
          : new JobRequest(type, payload, null, instant(when.at), options);
    } catch (ConfigException | IllegalArgumentException e) {
      return DelayqCli.fail(e.getMessage());
    }
    try (DelayQueue queue = DelayQueue.connect(config)) {
      EnqueueResult result = queue.enqueue(request);
      System.out.println(result.id());
      if (result.duplicate()) {
        System.err.println("delayq: a job with id " + result.id() + " already exists: nothing changed");
      }
      return 0;
    } catch (IllegalArgumentException e) {
      return DelayqCli.fail(e.getMessage());
    } catch (JedisConnectionException e) {
      return DelayqCli.fail("cannot reach Redis at " + RedisConnector.redact(config.redisUrl()) + ": "
          + e.getMessage() + (config.redis().embedded() ? " (is bin/delayq-supervisor running?)" : ""));
    } catch (RuntimeException e) {
      return DelayqCli.fail(e.getMessage());
    }
  }

  /** Refuses a payload that is not JSON before any connection is tried. */
  static void checkJson(String text) {
    try {
      if (JSON.readTree(text) == null || JSON.readTree(text).isMissingNode()) {
        throw new IllegalArgumentException("--payload is empty: give a JSON value, e.g. {}");
      }
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("--payload is not JSON: " + e.getOriginalMessage());
    }
  }

  static Instant instant(String text) {
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      try {
        return Instant.parse(text);
      } catch (DateTimeParseException e2) {
        throw new IllegalArgumentException("--at '" + text + "' is not an ISO-8601 instant with an offset, "
            + "e.g. 2026-12-01T10:00:00+08:00 or 2026-12-01T02:00:00Z");
      }
    }
  }
}
