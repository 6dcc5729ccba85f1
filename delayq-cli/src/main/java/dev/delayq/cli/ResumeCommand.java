package dev.delayq.cli;

import dev.delayq.redis.RedisBroker;
import picocli.CommandLine.Command;

/** {@code delayq resume QUEUE[:TYPE]}: lifts a pause; the jobs it held run next. */
@Command(name = "resume", mixinStandardHelpOptions = true,
    description = "Resume a paused queue or job type: the jobs held meanwhile go back to ready and run next.",
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:resumed (or was not paused)", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class ResumeCommand extends PauseScopeCommand {
  @Override
  String apply(Session s, PauseScope scope) {
    RedisBroker.Resumed r = s.admin.resume(scope.adminScope());
    return (r.wasPaused() ? "resumed " : "was not paused: ") + scope + "; " + r.givenBack()
        + " held job(s) back to ready";
  }
}
