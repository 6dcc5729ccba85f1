package dev.delayq.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.delayq.DelayQueue;
import dev.delayq.DueTime;
import dev.delayq.EnqueueResult;
import dev.delayq.IfPending;
import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import dev.delayq.config.DelayqConfig;
import dev.delayq.config.Durations;
import dev.delayq.process.LogText;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code delayq enqueue}: one job (prints its id), or every line of a jobs file. */
@Command(name = "enqueue", mixinStandardHelpOptions = true,
    description = {"Put one job on the queue and print its id, or every job of a JSON-lines file.",
        "Examples:",
        "  delayq enqueue --type order_close --payload '{\"order_id\":1001}' --delay 30m --id order-1001",
        "  delayq enqueue --type report --at 2026-12-01T10:00:00+08:00",
        "  delayq enqueue --type digest --id digest-42 --delay 5m --if-pending replace-and-push   (debounce)",
        "  delayq enqueue --file jobs.jsonl     (or --file - for stdin), one job per line:",
        "    {\"type\":\"order_close\",\"payload\":{\"order_id\":1},\"delay\":\"30s\"}",
        "    {\"type\":\"report\",\"at\":\"2026-12-01T10:00:00+08:00\",\"id\":\"r-1\",\"maxAttempts\":3}",
        "A bad line is reported with its number and reason and never stops the rest; the summary",
        "counts what was enqueued, what already existed (same id) and what was rejected."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:enqueued (a job whose id already existed is reported, not an error)",
        "1:--if-pending refused: the job with this id is running or dead",
        "2:bad input: option, duration, instant, JSON, or some lines of the file rejected",
        ExitCodes.REDIS_LINE})
final class EnqueueCommand implements Callable<Integer> {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Option(names = "--type", paramLabel = "TYPE", description = "The job type, e.g. order_close.")
  String type;

  @Option(names = "--payload", paramLabel = "JSON", description = "The payload, JSON (default {}).")
  String payload;

  @Option(names = "--delay", paramLabel = "DURATION", description = "Run after this delay: 250ms, 30s, 5m, 2h, 1d.")
  String delay;

  @Option(names = "--at", paramLabel = "ISO-8601", description = "Run at this instant, e.g. 2026-12-01T10:00:00+08:00.")
  String at;

  @Option(names = "--id", paramLabel = "ID",
      description = "Your own job id; a second enqueue with the same id changes nothing (idempotent).")
  String id;

  @Option(names = "--if-pending", paramLabel = "WHAT",
      description = "When a job with this --id is still delayed or ready: keep (default: nothing changes), "
          + "replace-payload, push-due (its due time becomes this enqueue's: debounce) or replace-and-push. "
          + "A running or dead job is refused.")
  String ifPending;

  @Option(names = "--max-attempts", paramLabel = "N", description = "Attempts before the job goes to dead (default: retry.maxAttempts).")
  Integer maxAttempts;

  @Option(names = {"-f", "--file"}, paramLabel = "FILE",
      description = "Enqueue every line of this JSON-lines file ('-' reads stdin), in pipelined batches.")
  String file;

  @Override
  public Integer call() {
    if (file != null) {
      if (type != null || payload != null || delay != null || at != null || id != null || maxAttempts != null
          || ifPending != null) {
        throw CliException.badInput("--file takes every job from the file: drop --type, --payload, "
            + "--delay, --at, --id, --if-pending and --max-attempts");
      }
      return new FileEnqueue(parent, spec.commandLine().getOut(), spec.commandLine().getErr())
          .run(file);
    }
    return enqueueOne();
  }

  private int enqueueOne() {
    if (type == null) {
      throw CliException.badInput("give --type TYPE (or --file FILE)");
    }
    if ((delay == null) == (at == null)) {
      throw CliException.badInput(delay == null ? "give --delay DURATION or --at ISO-8601"
          : "give --delay or --at, not both");
    }
    String json = payload == null ? "{}" : payload;
    checkJson(json);
    IfPending option = ifPending(ifPending);
    if (option != IfPending.KEEP && id == null) {
      throw CliException.badInput("--if-pending " + ifPending + " changes the pending job with the same id: give --id");
    }
    JobOptions options = new JobOptions(id, maxAttempts).ifPending(option);
    JobRequest request = delay != null
        ? new JobRequest(type, json, Durations.parse(delay), null, options)
        : new JobRequest(type, json, null, DueTime.parse("--at", at), options);
    DelayqConfig config = parent.loadConfig();
    PrintWriter out = spec.commandLine().getOut();
    try (DelayQueue queue = DelayQueue.connect(config, parent.redisUrl(config))) {
      EnqueueResult result = queue.enqueue(request);
      out.println(result.id());
      out.flush();
      if (result.refused()) {
        throw CliException.notFound(result.describe());
      }
      if (result.accepted() && request.at() != null) {
        pastAtNotice(spec.commandLine().getErr(), request.at());
      }
      if (result.status() == EnqueueResult.Status.CHANGED) {
        spec.commandLine().getErr().println("delayq: " + LogText.escape(result.describe()));
      } else if (result.duplicate()) {
        spec.commandLine().getErr().println("delayq: a job with id " + LogText.escape(result.id()) + " "
            + takenBecause(result) + ": nothing changed");
      }
      return ExitCodes.OK;
    }
  }

  static IfPending ifPending(String text) {
    if (text == null) {
      return IfPending.KEEP;
    }
    return switch (text) {
      case "keep" -> IfPending.KEEP;
      case "replace-payload" -> IfPending.REPLACE_PAYLOAD;
      case "push-due" -> IfPending.PUSH_DUE;
      case "replace-and-push" -> IfPending.REPLACE_AND_PUSH;
      default -> throw CliException.badInput("--if-pending '" + text
          + "' is not one of keep, replace-payload, push-due, replace-and-push");
    };
  }

  /** Why an id was taken, as the CLI says it. */
  static String takenBecause(EnqueueResult r) {
    return switch (r.status()) {
      case PENDING -> "is still pending";
      case DEAD -> "is dead (delayq inspect " + LogText.escape(r.id()) + ")";
      case FINISHED -> "already finished; the id stays taken until " + r.idFreeAt() + " (queue.idRetention)";
      case REFUSED_RUNNING -> "is running";
      case REFUSED_MALFORMED -> "has a record that cannot be rewritten";
      case ACCEPTED, CHANGED, PENDING_COMMIT, WAITING, DEPENDENCY_FAILED ->
          throw new IllegalStateException("a new, changed or held job was not taken");
    };
  }

  /** Refuses a payload that is not JSON before any connection is tried. */
  static void checkJson(String text) {
    try {
      var node = JobLine.JSON.readTree(text);
      if (node == null || node.isMissingNode()) {
        throw new IllegalArgumentException("--payload is empty: give a JSON value, e.g. {}");
      }
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("--payload is not JSON: " + Formats.jsonError(e));
    }
  }

  /**
   * Says so when {@code at} is already past (by this host's clock): the job is due now, which an
   * operator who mistyped a year would otherwise not learn.
   */
  static void pastAtNotice(PrintWriter err, Instant at) {
    Instant now = Instant.now();
    if (at.isBefore(now)) {
      err.println("delayq: notice: --at " + at + " is in the past (" + Durations.format(
          java.time.Duration.between(at, now).truncatedTo(java.time.temporal.ChronoUnit.SECONDS))
          + " ago): the job is due now and runs as soon as a worker takes it");
      err.flush();
    }
  }
}
