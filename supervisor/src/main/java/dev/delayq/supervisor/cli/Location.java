package dev.delayq.supervisor.cli;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.supervisor.host.Home;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every command shares: which home and which config file. */
final class Location {
  @Option(names = "--home", paramLabel = "DIR",
      description = "Directory of run/, logs/, data/ and conf/ (default: $DELAYQ_HOME, else the install directory).")
  Path home;

  @Option(names = {"-c", "--config"}, paramLabel = "FILE",
      description = "Config file (default: conf/delayq.yml in the home, if present). DELAYQ_* variables override it.")
  Path config;

  Home resolve() {
    return Home.resolve(home);
  }

  /** Loads the config; a ConfigException carries the message for the operator. */
  DelayqConfig load(Home where) {
    // said on the terminal, before the log starts (once: the config is read again by reload)
    return new ConfigLoader().warningsTo(w -> System.err.println("delayq: warning: " + w))
        .load(where.configFile(config), System.getenv());
  }
}
