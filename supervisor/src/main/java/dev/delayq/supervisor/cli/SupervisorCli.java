package dev.delayq.supervisor.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code bin/delayq-supervisor}: {@code start}, {@code status}, {@code reload}, {@code stop}.
 * Exit codes: 0 done, 1 refused or failed (a second start, a bad config), 2 bad usage,
 * 3 {@code status} found no supervisor running.
 */
@Command(name = "delayq-supervisor", mixinStandardHelpOptions = true, version = "delayq 0.1.0",
    description = "Runs delayq: the embedded Redis (unless redis.url is set), one scheduler and N worker JVMs, "
        + "restarting what crashes. The other commands talk to it over run/supervisor.sock.",
    subcommands = {StartCommand.class, StatusCommand.class, ReloadCommand.class, StopCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:done", "1:refused or failed (already running, bad config, ...)", "2:bad usage",
        "3:status: no supervisor running"})
public final class SupervisorCli implements Runnable {
  static final int NOT_RUNNING = 3;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(new CommandLine(new SupervisorCli()).execute(args));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "give a command: start, status, reload or stop");
  }
}
