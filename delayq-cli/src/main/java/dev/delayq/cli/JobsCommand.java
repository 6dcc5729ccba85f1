package dev.delayq.cli;

import dev.delayq.process.LogText;
import dev.delayq.redis.JobBrowser;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code delayq jobs}: one bounded page of delayed, ready or in-flight jobs. */
@Command(name = "jobs", mixinStandardHelpOptions = true,
    description = {"List jobs: delayed ones by due time (or ready ones, next to run first, or in-flight "
        + "ones, consumer by consumer), one bounded page at a time, never a read of the whole queue.",
        "Examples:",
        "  delayq jobs --within 1h                  delayed jobs due in the next hour",
        "  delayq jobs --type order_close --prefix order-10",
        "  delayq jobs --ready --limit 20",
        "  delayq jobs --in-flight                  claimed jobs: running, or waiting in a consumer's batch",
        "  delayq jobs --waiting-for-handler        due jobs no worker they reached had a handler for",
        "See one with inspect; act on one with promote, reschedule, edit or cancel (a running one: cancel)."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.OK_LINE, ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class JobsCommand implements Callable<Integer> {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Option(names = "--ready", description = "List ready jobs instead of delayed ones.")
  boolean ready;

  @Option(names = "--in-flight", description = "List in-flight jobs (claimed by a consumer) instead of delayed ones.")
  boolean inFlight;

  @Option(names = "--waiting-for-handler",
      description = "List due jobs that no worker they reached had a handler for, the longest-waiting first.")
  boolean waitingForHandler;

  @Option(names = "--within", paramLabel = "DURATION", description = "Only delayed jobs due from now to now + this (default: any time).")
  Duration within;

  @Option(names = "--type", paramLabel = "TYPE", description = "Only jobs of this type.")
  String type;

  @Option(names = "--prefix", paramLabel = "ID-PREFIX", description = "Only jobs whose id starts with this.")
  String prefix;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "50", description = "Most jobs to print (1 to 1000, default 50).")
  int limit;

  @Option(names = "--offset", paramLabel = "K", defaultValue = "0",
      description = "Start after this many jobs looked at (the 'next page' line of the previous call gives it).")
  long offset;

  @Option(names = "--json", description = "Print one JSON object: the rows and nextOffset.")
  boolean json;

  @Override
  public Integer call() {
    if (ready && inFlight) {
      throw CliException.badInput("--ready and --in-flight are two lists: give one of them");
    }
    if (waitingForHandler && (ready || inFlight)) {
      throw CliException.badInput("--waiting-for-handler and " + (ready ? "--ready" : "--in-flight")
          + " are two lists: give one of them");
    }
    if ((ready || inFlight || waitingForHandler) && within != null) {
      throw CliException.badInput("--within is for delayed jobs: drop it with "
          + (ready ? "--ready" : inFlight ? "--in-flight" : "--waiting-for-handler"));
    }
    if (within != null && within.isNegative()) {
      throw CliException.badInput("--within must not be negative");
    }
    JobBrowser.Query q = new JobBrowser.Query(type, prefix, limit, offset);
    try (Session s = parent.connect()) {
      JobBrowser browser = s.broker.jobBrowser();
      long now = s.admin.redisNowMs();
      JobBrowser.Page page = ready ? browser.ready(q) : inFlight ? browser.inFlight(q)
          : waitingForHandler ? browser.waitingForHandler(q)
          : browser.delayed(0, within == null ? Long.MAX_VALUE : now + within.toMillis(), q);
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(Formats.json(page));
        return ExitCodes.OK;
      }
      String where = inFlight ? "HELD BY" : "DUE";
      out.printf("%-28s %-18s %-26s %-8s %s%n", "ID", "TYPE", where, "ATTEMPT", "PAYLOAD");
      for (JobBrowser.Row r : page.rows()) {
        String at = inFlight ? (r.running() ? "running on " : "claimed by ") + LogText.escape(r.consumer())
            : r.dueAt() > 0 ? Formats.relative(r.dueAt(), now) : "-";
        out.printf("%-28s %-18s %-26s %-8s %s%n", LogText.escape(r.id()), LogText.escape(r.type()),
            at, r.attempt() + "/" + r.maxAttempts(), Formats.oneLine(r.payloadJson(), 60));
      }
      if (page.rows().isEmpty()) {
        out.println("(no jobs match)");
      }
      if (page.nextOffset() >= 0) {
        out.println("next page: --offset " + page.nextOffset());
      }
      return ExitCodes.OK;
    }
  }
}
