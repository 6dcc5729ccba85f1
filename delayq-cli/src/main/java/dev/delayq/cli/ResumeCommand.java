package dev.delayq.cli;

import dev.delayq.redis.Resumed;
import picocli.CommandLine.Command;

/** {@code delayq resume QUEUE[:TYPE]}: lifts a pause; the jobs it held run next. */
@Command(name = "resume", mixinStandardHelpOptions = true,
    description = {"Resume a paused queue or job type: the jobs held meanwhile go back to ready and run next.",
        "A sharded queue (queue.shards > 1) is resumed shard by shard, each shard's held jobs given back "
            + "before the next. If a shard's Redis fails, that shard stays paused with its held jobs, the "
            + "command names it and exits 3: run the same resume again to finish it."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:resumed (or was not paused)", ExitCodes.USAGE_LINE,
        "3:Redis unreachable or failing (on a sharded queue: on the shards named; run it again)"})
final class ResumeCommand extends PauseScopeCommand {
  @Override
  String apply(Session s, PauseScope scope) {
    Resumed r = s.admin.resume(scope.adminScope());
    return (r.wasPaused() ? "resumed " : "was not paused: ") + scope + "; " + r.givenBack()
        + " held job(s) back to ready";
  }
}
