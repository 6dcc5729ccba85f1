package dev.delayq.cli;

import dev.delayq.process.LogText;
import dev.delayq.redis.Admin;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code delayq recover}: the recoverer, now, plus re-queuing of hash orphans. */
@Command(name = "recover", mixinStandardHelpOptions = true,
    description = {"Run the recoverer now: jobs in flight on consumers whose heartbeat expired, or "
        + "on in-flight lists with no registered consumer, go back to ready; the one whose handler "
        + "was running counts an attempt and a lost delivery (to dead past its attempts or the "
        + "poison-pill limit), the others go back as they were. Records whose id is in no "
        + "structure (orphans) go back to ready.",
        "Safe on a live system: each move is one script that re-checks its condition."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:done (also when there was nothing to recover)", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class RecoverCommand implements Callable<Integer> {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (Session s = parent.connect()) {
      Admin.RecoverReport r = s.admin.recover();
      out.printf("consumers taken back: %d with an expired heartbeat, %d unregistered%n",
          r.expiredConsumers(), r.unregisteredConsumers());
      out.printf("in-flight jobs: %d back to ready, %d to dead; %d charged an attempt (their handler "
          + "was running)%n", r.requeued(), r.deadLettered(), r.charged());
      out.printf("orphan records: %d back to ready, %d to dead (unreadable)%n",
          r.orphansRequeued(), r.orphansDeadLettered());
      Admin.WorkflowRepairs w = r.workflows();
      if (w.total() == 0 && w.notRepaired().isEmpty()) {
        return ExitCodes.OK; // no workflow breach: a queue without workflows reads as before
      }
      out.printf("workflows: %d waiting jobs released, %d dead by their policy, %d waiting entries without a "
          + "record removed; %d lost batch jobs counted, %d batches finished (callback enqueued)%n",
          w.released(), w.failed(), w.forgotten(), w.membersCounted(), w.batchesFinished());
      w.repaired().forEach(line -> out.println("  repaired: " + LogText.escape(line)));
      w.notRepaired().forEach(line -> out.println("  not repaired: " + LogText.escape(line)));
      return ExitCodes.OK;
    }
  }
}
