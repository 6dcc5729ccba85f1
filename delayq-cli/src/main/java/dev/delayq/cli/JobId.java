package dev.delayq.cli;

import java.util.Arrays;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;

/**
 * The id argument of the commands that act on one job (inspect, cancel, promote, reschedule,
 * edit: each mixes it in; dead retry names its own in an --all group), and the two rules every
 * command with an ID argument follows: its short options do not cluster, and a refused dashed id
 * gets the '--' hint.
 */
final class JobId {
  /** The label that marks an argument as a job's id, here and in dead retry. */
  static final String LABEL = "ID";

  @Parameters(paramLabel = LABEL, description = "The job's id.")
  String id;

  /**
   * On a command that takes an id, "-hQ2..." or "-q8Zz..." is an unknown option, not -h (help)
   * or -q with a value: a mistyped id must not show help or switch the queue. There a short
   * option is written apart ("-q NAME").
   */
  static void unclusterIdCommands(CommandLine cl) {
    if (takesId(cl.getCommandSpec())) {
      cl.setPosixClusteredShortOptionsAllowed(false);
    }
    cl.getSubcommands().values().forEach(JobId::unclusterIdCommands);
  }

  /**
   * Why a command that takes an id may have refused one: an id that begins with '-' reads as an
   * option ("-q8Zz..." is -q with a value), and goes after "--". delayq never generates such an
   * id; a caller may choose one.
   */
  static String dashedIdHint(CommandSpec command, String[] args) {
    boolean dashed = Arrays.stream(args).anyMatch(a -> a.startsWith("-") && !a.equals("--")
        && command.findOption(a) == null && !a.contains("="));
    return takesId(command) && dashed
        ? "; an id that begins with '-' goes after '--': " + command.qualifiedName() + " -- " + LABEL
        : "";
  }

  private static boolean takesId(CommandSpec command) {
    return command.positionalParameters().stream().anyMatch(p -> p.paramLabel().equals(LABEL));
  }
}
