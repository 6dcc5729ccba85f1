package dev.delayq.cli;

import dev.delayq.config.Durations;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code delayq reschedule ID --delay D | --at T}: give a delayed or ready job a new due time. */
@Command(name = "reschedule", mixinStandardHelpOptions = true,
    description = {"Give a delayed or ready job a new due time (from now by the Redis clock, or an instant). "
        + "Its payload, attempts and last error are kept.",
        "Examples:",
        "  delayq reschedule order-1001 --delay 10m",
        "  delayq reschedule order-1001 --at 2026-12-01T10:00:00+08:00"},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:rescheduled", "1:no such job, or it is running or dead", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class RescheduleCommand implements Callable<Integer> {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Mixin
  JobId jobId;

  @Option(names = "--delay", paramLabel = "DURATION", description = "Due after this delay from now: 250ms, 30s, 5m, 2h, 1d.")
  String delay;

  @Option(names = "--at", paramLabel = "ISO-8601", description = "Due at this instant, e.g. 2026-12-01T10:00:00+08:00.")
  String at;

  @Override
  public Integer call() {
    if ((delay == null) == (at == null)) {
      throw CliException.badInput(delay == null ? "give --delay DURATION or --at ISO-8601"
          : "give --delay or --at, not both");
    }
    if (delay != null) {
      java.time.Duration d = Durations.parse(delay);
      dev.delayq.DueTime.delayMs(d);
      return JobChanges.run(parent, spec.commandLine().getOut(), "rescheduled", q -> q.reschedule(jobId.id, d));
    }
    java.time.Instant instant = dev.delayq.DueTime.parse("--at", at);
    dev.delayq.DueTime.atMs(instant);
    int exit = JobChanges.run(parent, spec.commandLine().getOut(), "rescheduled", q -> q.reschedule(jobId.id, instant));
    if (exit == ExitCodes.OK) {
      EnqueueCommand.pastAtNotice(spec.commandLine().getErr(), instant);
    }
    return exit;
  }
}
