package dev.delayq.cli;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/delayq}: the operator's tool for the queue itself. It reads the same config file
 * and DELAYQ_* variables as the supervisor, so it reaches the embedded Redis on its port.
 * Exit codes: 0 done, 1 refused or failed, 2 bad usage.
 */
@Command(name = "delayq", mixinStandardHelpOptions = true, version = "delayq 0.1.0",
    description = "Put jobs on a delayq queue and look after it.",
    subcommands = {EnqueueCommand.class})
public final class DelayqCli implements Runnable {

  @Option(names = {"-c", "--config"}, paramLabel = "FILE", scope = CommandLine.ScopeType.INHERIT,
      description = "Config file (default: conf/delayq.yml under $DELAYQ_HOME or the install directory, if present).")
  Path config;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(new CommandLine(new DelayqCli()).execute(args));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "give a command, e.g. enqueue");
  }

  /** The configuration the supervisor would use; a ConfigException names the bad key. */
  DelayqConfig loadConfig() {
    return new ConfigLoader().load(configFile(), System.getenv());
  }

  private Path configFile() {
    if (config != null) {
      return config;
    }
    for (String base : new String[] {System.getenv("DELAYQ_HOME"), System.getProperty("delayq.install")}) {
      if (base != null && !base.isBlank()) {
        Path candidate = Path.of(base, "conf", "delayq.yml");
        if (Files.isRegularFile(candidate)) {
          return candidate;
        }
      }
    }
    return null;
  }

  static int fail(String message) {
    System.err.println("delayq: " + message);
    return 1;
  }
}
