package dev.delayq.cli;

import dev.delayq.BatchStatus;
import dev.delayq.DelayQueue;
import dev.delayq.config.DelayqConfig;
import dev.delayq.process.LogText;
import dev.delayq.redis.Workflows;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code delayq batch inspect ID | list | cancel ID}: batches of jobs (workflows) and their counts. */
@Command(name = "batch", mixinStandardHelpOptions = true,
    description = "Look at batches: jobs enqueued together whose callback fires once, when the last of them ended "
        + "(docs/workflows.md).",
    subcommands = {BatchCommand.InspectBatch.class, BatchCommand.ListCommand.class, BatchCommand.CancelBatch.class},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class BatchCommand implements Runnable {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "give inspect, list or cancel");
  }

  /** A batch as printed with --json: its counts, and its times in ISO-8601 (null when not yet). */
  record BatchJson(String id, String state, long total, long pending, long done, long dead, long cancelled,
      String createdAt, String closedAt, String endedAt, String successId, String completeId, String firedId) {
    static BatchJson of(Workflows.Batch b) {
      return new BatchJson(b.id(), b.state(), b.total(), b.pending(), b.done(), b.dead(), b.cancelled(),
          time(b.createdAt()), time(b.closedAt()), time(b.endedAt()), b.successId(), b.completeId(), b.firedId());
    }

    private static String time(long epochMs) {
      return epochMs > 0 ? Formats.instant(epochMs) : null;
    }
  }

  @Command(name = "inspect", mixinStandardHelpOptions = true,
      description = "Show a batch: its state (open, closed, finished, cancelled), how many jobs it has and how many are "
          + "pending, done, dead or cancelled, when it was created, closed and ended, and its callbacks' ids and "
          + "which of them fired.",
      exitCodeListHeading = ExitCodes.HEADING,
      exitCodeList = {"0:found", "1:no such batch", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
  static final class InspectBatch implements Callable<Integer> {
    @ParentCommand
    BatchCommand batch;

    @Spec
    CommandSpec spec;

    @Mixin
    BatchId batchId;

    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;

    @Override
    public Integer call() {
      String id = batchId.id;
      try (Session s = batch.parent.connect()) {
        Workflows.Batch b = s.admin.batch(id).orElseThrow(() -> CliException.notFound(
            "no batch " + id + " (never opened, or finished and forgotten) in queue " + s.keys.queue()));
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
          out.println(Formats.json(BatchJson.of(b)));
          return ExitCodes.OK;
        }
        long now = s.admin.redisNowMs();
        out.printf("id          %s%n", LogText.escape(b.id()));
        out.printf("state       %s%n", LogText.escape(b.state()));
        out.printf("total       %d%n", b.total());
        out.printf("pending     %d%n", b.pending());
        out.printf("done        %d%n", b.done());
        out.printf("dead        %d%n", b.dead());
        out.printf("cancelled   %d%n", b.cancelled());
        out.printf("created     %s%n", when(b.createdAt(), now));
        out.printf("closed      %s%n", when(b.closedAt(), now));
        out.printf("ended       %s%n", when(b.endedAt(), now));
        out.printf("on success  %s%n", callback(b.successId(), b));
        out.printf("on complete %s%n", callback(b.completeId(), b));
        return ExitCodes.OK;
      }
    }

    /** "2026-12-07T22:00:00.250Z (4.1s ago)", or "-" for a time not reached yet. */
    private static String when(long epochMs, long now) {
      return epochMs > 0 ? Formats.instant(epochMs) + " (" + Formats.relative(epochMs, now) + ")" : "-";
    }

    /** A callback's id, and whether it fired; "-" when the batch has none (or is not closed yet). */
    private static String callback(String callbackId, Workflows.Batch b) {
      if (callbackId == null || callbackId.isEmpty()) {
        return "-";
      }
      String shown = LogText.escape(callbackId);
      if (callbackId.equals(b.firedId())) {
        return shown + " (fired)";
      }
      return b.state().equals("finished") || b.state().equals("cancelled") ? shown + " (not fired)" : shown;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "List the open batches (neither finished nor cancelled), oldest first, with their counts.",
      exitCodeListHeading = ExitCodes.HEADING,
      exitCodeList = {"0:listed (also when there are none)", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
  static final class ListCommand implements Callable<Integer> {
    @ParentCommand
    BatchCommand batch;

    @Spec
    CommandSpec spec;

    @Mixin
    ListLimit limit;

    @Option(names = "--json", description = "Print one JSON object per line.")
    boolean json;

    @Override
    public Integer call() {
      int most = limit.value();
      PrintWriter out = spec.commandLine().getOut();
      try (Session s = batch.parent.connect()) {
        List<Workflows.Batch> batches = s.admin.openBatches(most);
        if (json) {
          batches.forEach(b -> out.println(Formats.json(BatchJson.of(b))));
          return ExitCodes.OK;
        }
        if (batches.isEmpty()) {
          out.println("no open batches in queue " + s.keys.queue());
          return ExitCodes.OK;
        }
        long now = s.admin.redisNowMs();
        int idWidth = Math.max(2, batches.stream().mapToInt(b -> LogText.escape(b.id()).length()).max().orElse(2));
        String row = "%-" + idWidth + "s  %-6s  %8s  %8s  %8s  %8s  %9s  %s%n";
        out.printf(row, "id", "state", "total", "pending", "done", "dead", "cancelled", "created");
        for (Workflows.Batch b : batches) {
          out.printf(row, LogText.escape(b.id()), LogText.escape(b.state()), b.total(), b.pending(), b.done(),
              b.dead(), b.cancelled(), Formats.span(now - b.createdAt()) + " ago");
        }
        long open = s.broker.workflows().openBatchCount();
        if (open > batches.size()) {
          out.println("(" + batches.size() + " of " + open + " open batches; --limit N for more)");
        }
        return ExitCodes.OK;
      }
    }
  }

  @Command(name = "cancel", mixinStandardHelpOptions = true,
      description = "Cancel a batch: its callbacks never fire, its jobs not started are withdrawn, and a running "
          + "one is asked to stop (as cancel --even-if-running).",
      exitCodeListHeading = ExitCodes.HEADING,
      exitCodeList = {"0:cancelled", "1:no such batch, or it finished or was cancelled already", ExitCodes.USAGE_LINE,
          ExitCodes.REDIS_LINE})
  static final class CancelBatch implements Callable<Integer> {
    @ParentCommand
    BatchCommand batch;

    @Spec
    CommandSpec spec;

    @Mixin
    BatchId batchId;

    @Override
    public Integer call() {
      DelayqConfig config = batch.parent.loadConfig();
      BatchStatus after;
      try (DelayQueue queue = DelayQueue.connect(config, batch.parent.redisUrl(config))) {
        after = queue.cancelBatch(batchId.id);
      } catch (IllegalStateException e) {
        throw CliException.notFound(e.getMessage());
      }
      PrintWriter out = spec.commandLine().getOut();
      out.printf("cancelled batch %s: %d done, %d dead, %d cancelled of %d%n", LogText.escape(after.id()), after.done(),
          after.dead(), after.cancelled(), after.total());
      return ExitCodes.OK;
    }
  }
}
