package dev.delayq.cli;

import dev.delayq.config.DelayqConfig;
import dev.delayq.process.LogText;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code delayq check}: verifies that every job is in exactly one place, with its record. */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = {"Check the invariant: every job id is in exactly one of delayed, ready, one "
        + "consumer's in-flight list or dead, and has its record; lists every breach. Without --queue: "
        + "every queue of the system (worker.queues), one line each.",
        "A breach must show in three snapshots a moment apart, so jobs moving under a live system "
            + "are not mistaken for one. 'delayq recover' re-queues orphan records."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {"0:no breach", "1:breaches found (listed)", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class CheckCommand implements Callable<Integer> {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    int breaches = 0;
    List<String> breached = new java.util.ArrayList<>();
    for (DelayqConfig queue : queues()) {
      try (Session s = parent.connect(queue)) {
        List<InvariantCheck.Breach> found = s.invariant.breaches();
        Inspector.Depths d = s.inspector.depths();
        if (found.isEmpty()) {
          out.printf("ok: queue %s, %d records, each job in exactly one place%n", s.keys.queue(), d.records());
          continue;
        }
        for (InvariantCheck.Breach b : found) {
          out.println("breach " + b.kind() + ": " + LogText.escape(b));
        }
        breaches += found.size();
        breached.add(s.keys.queue() + " (" + d.records() + " records)");
      }
    }
    if (breaches == 0) {
      return ExitCodes.OK;
    }
    out.flush();
    throw CliException.notFound(breaches + " breach" + (breaches == 1 ? "" : "es")
        + " of the invariant in queue " + String.join(", ", breached));
  }

  /** The queue --queue names; without it, every queue of the system (worker.queues), in order. */
  private List<DelayqConfig> queues() {
    if (parent.queue != null) {
      return List.of(parent.loadConfig());
    }
    return parent.loadSystemConfig().perQueue();
  }
}
