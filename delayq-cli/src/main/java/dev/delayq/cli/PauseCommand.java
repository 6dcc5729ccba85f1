package dev.delayq.cli;

import picocli.CommandLine.Command;

/** {@code delayq pause QUEUE[:TYPE]}: nothing of the queue (or type) starts until it is resumed. */
@Command(name = "pause", mixinStandardHelpOptions = true,
    description = {"Pause a queue or one job type in it: its jobs are still accepted and still fall due, "
        + "none starts until `delayq resume`; running jobs finish. Kept in Redis (survives restarts).",
        "A sharded queue (queue.shards > 1) is paused shard by shard. If a shard's Redis fails, the others "
            + "are paused, the command names the shards not done and exits 3, and `delayq stats` shows "
            + "'paused on N of K shards': run the same pause again to finish it."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:paused (or already paused)", ExitCodes.USAGE_LINE,
        "3:Redis unreachable or failing (on a sharded queue: on the shards named; run it again)"})
final class PauseCommand extends PauseScopeCommand {
  @Override
  String apply(Session s, PauseScope scope) {
    return (s.admin.pause(scope.adminScope()) ? "paused " : "already paused: ") + scope;
  }
}
