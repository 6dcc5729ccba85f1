package dev.delayq.cli;

import dev.delayq.redis.Admin;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code delayq cancel ID}: withdraws a job that has not started. */
@Command(name = "cancel", mixinStandardHelpOptions = true,
    description = "Withdraw a job that is still delayed or ready (a running or dead job cannot be cancelled).",
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:cancelled", "1:no such job, or it is running or dead", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class CancelCommand implements Callable<Integer> {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Parameters(paramLabel = "ID", description = "The job's id.")
  String id;

  @Override
  public Integer call() {
    try (Session s = parent.connect()) {
      if (s.broker.cancel(id)) {
        spec.commandLine().getOut().println("cancelled " + id);
        return ExitCodes.OK;
      }
      Optional<Admin.JobView> job = s.admin.inspect(id);
      if (job.isEmpty()) {
        throw CliException.notFound("no job with id " + id + " in queue " + s.keys.queue());
      }
      throw CliException.notFound("job " + id + " cannot be cancelled: it is "
          + InspectCommand.describe(job.get()) + " (only delayed or ready jobs can be)");
    }
  }
}
