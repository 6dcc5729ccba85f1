package dev.delayq.cli;

import dev.delayq.redis.Admin;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code delayq cancel ID}: withdraws a job that has not started, or interrupts a running one. */
@Command(name = "cancel", mixinStandardHelpOptions = true,
    description = "Withdraw a job that is still delayed or ready; for a running job, tell its worker to "
        + "interrupt it (JobContext.isCancelled() turns true): it then ends as cancelled, not retried. "
        + "A dead job cannot be cancelled (dead purge removes it).",
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:cancelled, or its worker was told to interrupt it", "1:no such job, or it is dead",
        ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class CancelCommand implements Callable<Integer> {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Mixin
  JobId jobId;

  @Override
  public Integer call() {
    try (Session s = parent.connect()) {
      if (s.broker.cancel(jobId.id)) {
        spec.commandLine().getOut().println("cancelled " + jobId.id);
        return ExitCodes.OK;
      }
      if (s.broker.requestCancel(jobId.id) == dev.delayq.redis.RedisBroker.CancelAsk.ASKED) {
        spec.commandLine().getOut().println("cancelling " + jobId.id + ": it is running; its worker interrupts it "
            + "and it ends as cancelled, not retried");
        return ExitCodes.OK;
      }
      Optional<Admin.JobView> job = s.admin.inspect(jobId.id);
      if (job.isEmpty()) {
        throw CliException.noSuchJob(jobId.id, s.keys.queue());
      }
      throw CliException.notFound("job " + jobId.id + " cannot be cancelled: it is "
          + InspectCommand.describe(job.get()) + " (delayed, ready and running jobs can be)");
    }
  }
}
