package dev.delayq.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code delayq edit ID --payload JSON}: replace the payload of a delayed or ready job. */
@Command(name = "edit", mixinStandardHelpOptions = true,
    description = "Replace the payload of a delayed or ready job; its due time, attempts and last error are kept.",
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:edited", "1:no such job, or it is running or dead",
        "2:bad input: the payload is not JSON or is over queue.maxPayloadBytes", ExitCodes.REDIS_LINE})
final class EditCommand implements Callable<Integer> {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Mixin
  JobId jobId;

  @Option(names = "--payload", paramLabel = "JSON", required = true, description = "The new payload, JSON.")
  String payload;

  @Override
  public Integer call() {
    EnqueueCommand.checkJson(payload);
    return JobChanges.run(parent, spec.commandLine().getOut(), "edited", q -> q.editPayload(jobId.id, payload));
  }
}
