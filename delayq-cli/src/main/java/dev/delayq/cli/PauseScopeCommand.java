package dev.delayq.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * What {@code delayq pause} and {@code delayq resume} share: the QUEUE[:TYPE] argument, a session
 * on that queue of the system, and a refusal of the admin's (an unknown queue, a bad type) as bad
 * input. A change that some shards of a sharded queue did not take reaches the error handler,
 * which names those shards (exit 3).
 */
abstract class PauseScopeCommand implements Callable<Integer> {
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
      String line;
      try {
        line = apply(s, scope);
      } catch (IllegalArgumentException e) {
        throw CliException.badInput(e.getMessage());
      }
      spec.commandLine().getOut().println(line);
      return ExitCodes.OK;
    }
  }

  /** Pauses or resumes {@code scope}; the line to print. */
  abstract String apply(Session s, PauseScope scope);
}
