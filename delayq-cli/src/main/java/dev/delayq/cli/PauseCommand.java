package dev.delayq.cli;

import picocli.CommandLine.Command;

/** {@code delayq pause QUEUE[:TYPE]}: nothing of the queue (or type) starts until it is resumed. */
@Command(name = "pause", mixinStandardHelpOptions = true,
    description = {"Pause a queue or one job type in it: its jobs are still accepted and still fall due, "
        + "none starts until `delayq resume`; running jobs finish. Kept in Redis (survives restarts)."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:paused (or already paused)", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class PauseCommand extends PauseScopeCommand {
  @Override
  String apply(Session s, PauseScope scope) {
    return (s.admin.pause(scope.adminScope()) ? "paused " : "already paused: ") + scope;
  }
}
