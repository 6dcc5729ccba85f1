package dev.delayq.cli;

import dev.delayq.process.LogText;
import dev.delayq.redis.Admin;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code delayq inspect ID}: where a job is, when it is due, its attempts, error and record. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
    description = "Show a job: its state (DELAYED, READY, IN_FLIGHT on a consumer, DEAD, HELD by a pause or cap, WAITING_FOR_HANDLER, "
        + "WAITING for other jobs, or ORPHAN), due time, attempts, last error and raw record; for a job that ended whose id "
        + "stays taken or whose result is kept (queue.idRetention), how it ended, its result, and when the id is free again.",
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:found", "1:no such job", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class InspectCommand implements Callable<Integer> {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Mixin
  JobId jobId;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Override
  public Integer call() {
    try (Session s = parent.connect()) {
      Admin.JobView job = s.admin.inspect(jobId.id).orElseThrow(() ->
          CliException.noSuchJob(jobId.id, s.keys.queue()));
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(Formats.json(job));
        return ExitCodes.OK;
      }
      long now = s.admin.redisNowMs();
      out.printf("id          %s%n", LogText.escape(job.id()));
      out.printf("state       %s%n", LogText.escape(describe(job)));
      if (job.state() == Admin.State.ENDED) {
        Admin.Ended e = job.ended();
        long endedAt = e != null ? e.endedAt() : job.result().endedAt();
        out.printf("ended       %s at %s (%s)%n", LogText.escape(job.outcome()), Formats.instant(endedAt),
            Formats.relative(endedAt, now));
        if (e != null) {
          out.printf("id free at  %s (%s; queue.idRetention)%n", Formats.instant(e.freeAt()), Formats.relative(e.freeAt(), now));
        }
        printResult(out, job);
        return ExitCodes.OK;
      }
      out.printf("type        %s%n", LogText.escape(job.type()));
      if (job.waiting() != null) {
        Admin.Waiting w = job.waiting();
        out.printf("waits for   %s%n", w.waitsFor().isEmpty() ? "-"
            : LogText.escape(String.join(", ", w.waitsFor())));
        if (w.sinceMs() > 0) {
          out.printf("waiting     since %s (%s)%n", Formats.instant(w.sinceMs()), Formats.relative(w.sinceMs(), now));
        }
        out.printf("then due    %s after the last of them ended%n", Formats.span(w.delayMs()));
        out.printf("policy      %s (when one of them does not end done)%n", LogText.escape(w.ifDependencyFails()));
      }
      if (job.dueAt() > 0) {
        out.printf("due         %s (%s)%n", Formats.instant(job.dueAt()), Formats.relative(job.dueAt(), now));
      }
      if (job.deadAt() != null) {
        out.printf("dead since  %s (%s)%n", Formats.instant(job.deadAt()), Formats.relative(job.deadAt(), now));
      }
      out.printf("attempt     %d of %d%n", job.attempt(), job.maxAttempts());
      out.printf("last error  %s%n", job.lastError() == null ? "-" : LogText.escape(job.lastError()));
      out.printf("record      %s%n", job.rawRecord() == null ? "(none: a breach, see delayq check)"
          : LogText.escape(job.rawRecord()));
      printResult(out, job);
      return ExitCodes.OK;
    }
  }

  /** The result a job ended with, while kept (a job of a workflow, or one that gave a result). */
  private static void printResult(PrintWriter out, Admin.JobView job) {
    if (job.result() != null) {
      out.printf("result      %s%n", job.result().json() == null ? "(none given)" : LogText.escape(job.result().json()));
    }
  }

  /** "delayed", "running on consumer worker-1:42:3", "dead", … */
  static String describe(Admin.JobView job) {
    return switch (job.state()) {
      case DELAYED -> "DELAYED (waiting for its due time)";
      case READY -> "READY (due, waiting for a worker)";
      case IN_FLIGHT -> "IN_FLIGHT (running on consumer " + job.consumer() + ")";
      case DEAD -> "DEAD (see delayq dead list; delayq dead retry " + job.id() + ")";
      case ORPHAN -> "ORPHAN (a record in no structure; delayq recover re-queues it)";
      case HELD -> "HELD (due; its type is paused or at its concurrency cap)";
      case WAITING_FOR_HANDLER -> "WAITING_FOR_HANDLER (due; no worker it reached has a handler for its type: "
          + "it runs when one announces it, or goes to dead after queue.handlerWait)";
      case WAITING -> "WAITING (for other jobs to end: " + String.join(", ", job.waiting().waitsFor())
          + "; then it falls due after its own delay)";
      case ENDED -> "ENDED (" + job.outcome() + "; its record is gone, "
          + (job.ended() != null ? "its id stays taken)" : "its result is kept)");
    };
  }
}
