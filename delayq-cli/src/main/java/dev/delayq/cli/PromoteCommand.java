package dev.delayq.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code delayq promote ID}: run a delayed or ready job now. */
@Command(name = "promote", mixinStandardHelpOptions = true,
    description = "Run a delayed or ready job now: it becomes due now and is the next one a worker takes. "
        + "Its attempts and last error are kept.",
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:promoted", "1:no such job, or it is running or dead", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class PromoteCommand implements Callable<Integer> {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Mixin
  JobId jobId;

  @Override
  public Integer call() {
    return JobChanges.run(parent, spec.commandLine().getOut(), "promoted", q -> q.promote(jobId.id));
  }
}
