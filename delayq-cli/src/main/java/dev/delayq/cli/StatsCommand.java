package dev.delayq.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayq.redis.Admin;
import dev.delayq.redis.Inspector;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code delayq stats}: depths, backlog, oldest overdue, jobs/s, lateness, counters per type. */
@Command(name = "stats", mixinStandardHelpOptions = true,
    description = {"Show the queue: delayed, ready, in flight and dead; the backlog of due jobs not yet "
        + "started and how overdue the oldest is; jobs/s and lateness (start minus due) p50/p99 over "
        + "the last minute; cumulative counts per job type.",
        "Lateness quantiles are histogram bucket bounds: 'p99 <= 25ms' means 99%% of the jobs started "
            + "in the last minute started at most 25 ms after they were due."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.OK_LINE, ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class StatsCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Option(names = "--json", description = "Print one JSON object (one per line with --watch).")
  boolean json;

  @Option(names = {"-w", "--watch"}, description = "Print again every --interval until interrupted (Ctrl-C).")
  boolean watch;

  @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "2s",
      description = "Time between two prints with --watch (default: ${DEFAULT-VALUE}).")
  Duration interval;

  /** Stops --watch after this many prints; for tests. */
  @Option(names = "--iterations", hidden = true, defaultValue = "0")
  int iterations;

  @Override
  public Integer call() throws InterruptedException {
    if (interval.toMillis() < 100) {
      throw CliException.badInput("--interval must be at least 100ms, got " + interval.toMillis() + "ms");
    }
    PrintWriter out = spec.commandLine().getOut();
    boolean terminal = System.console() != null;
    try (Session s = parent.connect()) {
      for (int i = 1; ; i++) {
        Admin.Stats stats = s.admin.stats();
        Inspector.Flow flow = s.admin.flow();
        if (json) {
          ObjectNode node = JSON.createObjectNode().put("queue", s.keys.queue());
          node.setAll((ObjectNode) JSON.valueToTree(stats));
          ObjectNode f = node.putObject("flow");
          f.set("paused", JSON.valueToTree(flow.paused()));
          f.set("held", JSON.valueToTree(flow.held()));
          f.set("partlyPaused", JSON.valueToTree(flow.partlyPaused()));
          f.set("waitingForHandler", JSON.valueToTree(flow.waitingForHandler()));
          out.println(node);
        } else {
          if (watch && terminal) {
            out.print("\033[H\033[2J");
          } else if (watch && i > 1) {
            out.println();
          }
          out.print(StatsText.render(s.keys.queue(), stats, flow));
        }
        out.flush();
        if (!watch || (iterations > 0 && i >= iterations)) {
          return ExitCodes.OK;
        }
        Thread.sleep(interval.toMillis());
      }
    }
  }
}
