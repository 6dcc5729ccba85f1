package dev.delayq.cli;

import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.Schedules;
import dev.delayq.config.DelayqConfig;
import dev.delayq.process.LogText;
import dev.delayq.schedule.Schedule;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code delayq schedule upsert|list|remove|pause|resume|run}: recurring schedules by id. */
@Command(name = "schedule", mixinStandardHelpOptions = true,
    description = "Manage recurring schedules by id; each tick enqueues one job (exactly one, "
        + "however many schedulers run). Definitions live in the queue's Redis.",
    subcommands = {ScheduleCommand.Upsert.class, ScheduleCommand.ListSchedules.class, ScheduleCommand.Remove.class,
        ScheduleCommand.Pause.class, ScheduleCommand.Resume.class, ScheduleCommand.Run.class},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE, ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class ScheduleCommand implements Runnable {
  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "give upsert, list, remove, pause, resume or run");
  }

  /** Runs {@code action} on the queue's schedules with a producer (for run and the payload checks). */
  <T> T withSchedules(Function<DelayQueue, T> action) {
    DelayqConfig config = parent.loadConfig();
    try (DelayQueue queue = DelayQueue.connect(config, parent.redisUrl(config))) {
      return action.apply(queue);
    }
  }

  static void print(PrintWriter out, Schedules.View v) {
    Schedule s = v.schedule();
    out.printf("%s  %s  type %s  %s  missed ticks: %s%n", LogText.escape(s.id()), s.cadence().describe(),
        s.type(), s.paused() ? "PAUSED" : "active", s.missed() == Schedule.Missed.SKIP ? "skip" : "run once");
    out.printf("  payload %s%n", Formats.oneLine(s.payloadJson(), 100));
    out.printf("  next    %s%n", v.nextTicks().isEmpty() ? "-"
        : String.join(", ", v.nextTicks().stream().map(Instant::toString).toList()));
  }

  /** A schedule whose definition cannot be read: one line, so the others are listed as usual. */
  static void print(PrintWriter out, Schedules.Broken b) {
    out.printf("%s  BROKEN: %s (it does not tick; save it again or remove it)%n", LogText.escape(b.id()),
        LogText.escape(b.reason()));
  }

  private static CliException noSuch(String id) {
    return CliException.notFound("no schedule with id " + id);
  }

  @Command(name = "upsert", mixinStandardHelpOptions = true,
      description = {"Create or replace a schedule.",
          "Examples:",
          "  delayq schedule upsert sweep-unpaid --cron '*/5 * * * *' --type order_sweep --payload '{}'",
          "  delayq schedule upsert digest --cron '0 9 * * *' --tz Asia/Shanghai --type daily_digest",
          "  delayq schedule upsert heartbeat --every 30s --type ping --missed run-once",
          "Cron has five fields (minute first) or six (second first). --every ticks at multiples of",
          "the interval. Its first tick is at least 1 s after this command."},
      exitCodeListHeading = ExitCodes.HEADING,
      exitCodeList = {"0:saved", "2:bad input: cron, zone, interval, type, payload", ExitCodes.REDIS_LINE})
  static final class Upsert implements Callable<Integer> {
    @ParentCommand
    ScheduleCommand schedule;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "ID", description = "The schedule's id.")
    String id;

    @Option(names = "--cron", paramLabel = "EXPR", description = "A cron expression, e.g. '*/5 * * * *'.")
    String cron;

    @Option(names = "--tz", paramLabel = "ZONE", description = "The cron's time zone (default UTC), e.g. Asia/Shanghai.")
    String zone;

    @Option(names = "--every", paramLabel = "DURATION", description = "Tick every so many seconds instead: 1s, 30s, 5m.")
    Duration every;

    @Option(names = "--type", paramLabel = "TYPE", required = true, description = "The type of each tick's job.")
    String type;

    @Option(names = "--payload", paramLabel = "JSON", defaultValue = "{}", description = "Each tick's payload (default {}).")
    String payload;

    @Option(names = "--max-attempts", paramLabel = "N", description = "Attempts of each tick's job (default: retry.maxAttempts).")
    Integer maxAttempts;

    @Option(names = "--missed", paramLabel = "skip|run-once", defaultValue = "skip",
        description = "Ticks that fell while no scheduler ran: skip them (default), or run one job for them.")
    String missed;

    @Option(names = "--paused", description = "Save it paused.")
    boolean paused;

    @Override
    public Integer call() {
      EnqueueCommand.checkJson(payload);
      Schedule.Missed policy = switch (missed) {
        case "skip" -> Schedule.Missed.SKIP;
        case "run-once" -> Schedule.Missed.RUN_ONCE;
        default -> throw CliException.badInput("--missed '" + missed + "' is not skip or run-once");
      };
      DelayqConfig config = schedule.parent.loadConfig();
      int attempts = maxAttempts == null ? config.retry().maxAttempts() : maxAttempts;
      Schedule s = new Schedule(id, Schedules.cadence(cron, zone, every), type, payload, attempts, paused, policy);
      Schedules.View v = schedule.withSchedules(q -> q.schedules().upsert(s));
      PrintWriter out = spec.commandLine().getOut();
      out.println("saved schedule " + id);
      print(out, v);
      return ExitCodes.OK;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = {"List the schedules with their next ticks.",
      "A schedule whose stored definition cannot be read is listed as BROKEN with the reason."},
      exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.OK_LINE, ExitCodes.REDIS_LINE})
  static final class ListSchedules implements Callable<Integer> {
    @ParentCommand
    ScheduleCommand schedule;

    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Print one JSON object per schedule.")
    boolean json;

    @Override
    public Integer call() {
      Schedules.Listing all = schedule.withSchedules(q -> q.schedules().listing());
      PrintWriter out = spec.commandLine().getOut();
      for (Schedules.View v : all.schedules()) {
        if (json) {
          out.println(Formats.json(new Row(v)));
        } else {
          print(out, v);
        }
      }
      for (Schedules.Broken b : all.broken()) {
        if (json) {
          out.println(Formats.json(new BrokenRow(b.id(), b.reason())));
        } else {
          print(out, b);
        }
      }
      if (all.schedules().isEmpty() && all.broken().isEmpty() && !json) {
        out.println("(no schedules)");
      }
      return ExitCodes.OK;
    }
  }

  /** A schedule as {@code list --json} prints it. */
  record Row(String id, String cadence, String type, String payload, int maxAttempts, boolean paused,
      String missed, List<String> nextTicks, String lastTick) {
    Row(Schedules.View v) {
      this(v.schedule().id(), v.schedule().cadence().describe(), v.schedule().type(), v.schedule().payloadJson(),
          v.schedule().maxAttempts(), v.schedule().paused(), v.schedule().missed().name(),
          v.nextTicks().stream().map(Instant::toString).toList(), v.lastTick() == null ? null : v.lastTick().toString());
    }
  }

  /** A broken schedule as {@code list --json} prints it. */
  record BrokenRow(String id, String broken) {}

  /** A subcommand that acts on one schedule by its id; an unknown id exits 1. */
  abstract static class OnOneSchedule implements Callable<Integer> {
    @ParentCommand
    ScheduleCommand schedule;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "ID")
    String id;

    @Override
    public Integer call() {
      act(spec.commandLine().getOut());
      return ExitCodes.OK;
    }

    /** Does the subcommand's work on schedule {@link #id} and prints its line. */
    abstract void act(PrintWriter out);
  }

  @Command(name = "remove", mixinStandardHelpOptions = true, description = "Remove a schedule (a tick due within 1 s still runs).",
      exitCodeListHeading = ExitCodes.HEADING,
      exitCodeList = {"0:removed", "1:no such schedule", ExitCodes.REDIS_LINE})
  static final class Remove extends OnOneSchedule {
    @Override
    void act(PrintWriter out) {
      if (!schedule.withSchedules(q -> q.schedules().remove(id))) {
        throw noSuch(id);
      }
      out.println("removed schedule " + id);
    }
  }

  @Command(name = "pause", mixinStandardHelpOptions = true, description = "Stop a schedule ticking; its definition stays.",
      exitCodeListHeading = ExitCodes.HEADING,
      exitCodeList = {"0:paused", "1:no such schedule", ExitCodes.REDIS_LINE})
  static final class Pause extends OnOneSchedule {
    @Override
    void act(PrintWriter out) {
      print(out, schedule.withSchedules(q -> q.schedules().pause(id)).orElseThrow(() -> noSuch(id)));
    }
  }

  @Command(name = "resume", mixinStandardHelpOptions = true, description = "Let a paused schedule tick again, from its next tick.",
      exitCodeListHeading = ExitCodes.HEADING,
      exitCodeList = {"0:resumed", "1:no such schedule", ExitCodes.REDIS_LINE})
  static final class Resume extends OnOneSchedule {
    @Override
    void act(PrintWriter out) {
      print(out, schedule.withSchedules(q -> q.schedules().resume(id)).orElseThrow(() -> noSuch(id)));
    }
  }

  @Command(name = "run", mixinStandardHelpOptions = true,
      description = "Enqueue one job of the schedule now, outside its ticks (the schedule is not changed).",
      exitCodeListHeading = ExitCodes.HEADING,
      exitCodeList = {"0:enqueued; prints the job id", "1:no such schedule", ExitCodes.REDIS_LINE})
  static final class Run extends OnOneSchedule {
    @Override
    void act(PrintWriter out) {
      Optional<EnqueueResult> r = schedule.withSchedules(q -> q.schedules().runNow(q, id));
      out.println(r.orElseThrow(() -> noSuch(id)).id());
    }
  }
}
