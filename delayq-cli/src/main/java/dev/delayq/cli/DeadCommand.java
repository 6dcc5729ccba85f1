package dev.delayq.cli;

import dev.delayq.config.Durations;
import dev.delayq.process.LogText;
import dev.delayq.redis.Admin;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code delayq dead list | retry ID|--all | purge [--older-than D]}: the dead-letter set. */
@Command(name = "dead", mixinStandardHelpOptions = true,
    description = "Look at and act on dead jobs (attempts exhausted, poison pills, unknown types, "
        + "unreadable records); each keeps its record and last error.",
    subcommands = {DeadCommand.ListCommand.class, DeadCommand.RetryCommand.class, DeadCommand.PurgeCommand.class},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class DeadCommand implements Runnable {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "give list, retry or purge");
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "List dead jobs, newest first: id, type, when, attempts, last error.",
      exitCodeListHeading = ExitCodes.HEADING,
      exitCodeList = {"0:listed (also when there are none)", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
  static final class ListCommand implements Callable<Integer> {
    @ParentCommand
    DeadCommand dead;

    @Spec
    CommandSpec spec;

    @Option(names = "--type", paramLabel = "TYPE", description = "Only jobs of this type.")
    String type;

    @Mixin
    ListLimit limit;

    @Option(names = "--json", description = "Print one JSON object per line, with the payload.")
    boolean json;

    @Override
    public Integer call() {
      int most = limit.value();
      PrintWriter out = spec.commandLine().getOut();
      try (Session s = dead.parent.connect()) {
        List<Admin.DeadJob> jobs = s.admin.deadList(type, most);
        if (json) {
          jobs.forEach(j -> out.println(Formats.json(j)));
          return ExitCodes.OK;
        }
        if (jobs.isEmpty()) {
          out.println("no dead jobs" + (type == null ? "" : " of type " + type) + " in queue " + s.keys.queue());
          return ExitCodes.OK;
        }
        long now = s.admin.redisNowMs();
        int idWidth = Math.max(2, jobs.stream().mapToInt(j -> LogText.escape(j.id()).length()).max().orElse(2));
        int typeWidth = Math.max(4, jobs.stream().mapToInt(j -> LogText.escape(j.type()).length()).max().orElse(4));
        String row = "%-" + idWidth + "s  %-" + typeWidth + "s  %-12s  %-8s  %s%n";
        out.printf(row, "id", "type", "dead", "attempts", "last error");
        for (Admin.DeadJob j : jobs) {
          out.printf(row, LogText.escape(j.id()), LogText.escape(j.type()), Formats.span(now - j.deadAt()) + " ago",
              j.attempt() + "/" + j.maxAttempts(), Formats.oneLine(j.lastError(), 100));
        }
        return ExitCodes.OK;
      }
    }
  }

  @Command(name = "retry", mixinStandardHelpOptions = true,
      description = {"Run dead jobs again, at once: each goes to ready with attempt 1; its last error "
          + "stays in the record as previousError.",
          "A job whose record is unreadable cannot run and stays dead (inspect it, then purge)."},
      exitCodeListHeading = ExitCodes.HEADING,
      exitCodeList = {"0:retried (--all: also when there was nothing to retry)",
          "1:the job is not dead (unknown, or in another state), or its record is unreadable",
          ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
  static final class RetryCommand implements Callable<Integer> {
    @ParentCommand
    DeadCommand dead;

    @Spec
    CommandSpec spec;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Which which;

    static final class Which {
      @Parameters(paramLabel = JobId.LABEL, description = "The dead job's id.")
      String id;

      @Option(names = "--all", description = "Every dead job (in batches of 1,000).")
      boolean all;
    }

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      try (Session s = dead.parent.connect()) {
        if (which.all) {
          out.println("retried " + s.admin.retryAllDead() + " dead jobs");
          return ExitCodes.OK;
        }
        try {
          if (s.admin.retryDead(which.id)) {
            out.println("retried " + which.id);
            return ExitCodes.OK;
          }
        } catch (IllegalStateException e) {
          throw CliException.notFound(e.getMessage());
        }
        Optional<Admin.JobView> job = s.admin.inspect(which.id);
        throw job.isEmpty()
            ? CliException.noSuchJob(which.id, s.keys.queue())
            : CliException.notFound("job " + which.id + " is not dead: it is " + InspectCommand.describe(job.get()));
      }
    }
  }

  @Command(name = "purge", mixinStandardHelpOptions = true,
      description = "Remove dead jobs and their records for good: all of them, or only those dead "
          + "for at least --older-than (by the Redis clock).",
      exitCodeListHeading = ExitCodes.HEADING,
      exitCodeList = {"0:purged (also when there was nothing to purge)", ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
  static final class PurgeCommand implements Callable<Integer> {
    @ParentCommand
    DeadCommand dead;

    @Spec
    CommandSpec spec;

    @Option(names = "--older-than", paramLabel = "DURATION",
        description = "Only jobs dead for at least this long: 30m, 7d, …")
    Duration olderThan;

    @Override
    public Integer call() {
      try (Session s = dead.parent.connect()) {
        int n = s.admin.purgeDead(olderThan);
        spec.commandLine().getOut().println("purged " + n + " dead jobs"
            + (olderThan == null ? "" : " (dead for " + Durations.format(olderThan) + " or longer)"));
        return ExitCodes.OK;
      }
    }
  }
}
