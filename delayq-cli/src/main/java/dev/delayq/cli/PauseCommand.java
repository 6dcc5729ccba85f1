package dev.delayq.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code delayq pause QUEUE[:TYPE]}: nothing of the queue (or type) starts until it is resumed. */
@Command(name = "pause", mixinStandardHelpOptions = true,
    description = {"Pause a queue or one job type in it: its jobs are still accepted and still fall due, "
        + "none starts until `delayq resume`; running jobs finish. Kept in Redis (survives restarts)."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:paused (or already paused)", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class PauseCommand implements Callable<Integer> {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Parameters(paramLabel = "QUEUE[:TYPE]", description = "The queue, or QUEUE:TYPE for one job type.")
  String target;

  @Override
  public Integer call() {
    PauseScope scope = PauseScope.parse(target, parent.knownQueues());
    try (Session s = parent.connect(parent.loadSystemConfig().forQueue(scope.queue()))) {
      try {
        boolean now = s.admin.pause(scope.adminScope());
        spec.commandLine().getOut().println((now ? "paused " : "already paused: ") + scope);
      } catch (IllegalArgumentException e) {
        throw CliException.badInput(e.getMessage());
      }
      return ExitCodes.OK;
    }
  }
}
