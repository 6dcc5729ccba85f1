package dev.delayq.cli;

import dev.delayq.redis.RedisBroker;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code delayq resume QUEUE[:TYPE]}: lifts a pause; the jobs it held run next. */
@Command(name = "resume", mixinStandardHelpOptions = true,
    description = "Resume a paused queue or job type: the jobs held meanwhile go back to ready and run next.",
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:resumed (or was not paused)", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class ResumeCommand implements Callable<Integer> {
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
      RedisBroker.Resumed r;
      try {
        r = s.admin.resume(scope.adminScope());
      } catch (IllegalArgumentException e) {
        throw CliException.badInput(e.getMessage());
      }
      spec.commandLine().getOut().println((r.wasPaused() ? "resumed " : "was not paused: ") + scope
          + "; " + r.givenBack() + " held job(s) back to ready");
      return ExitCodes.OK;
    }
  }
}
