package dev.delayq.process;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import java.nio.file.Path;

/** The command line of a child process: {@code [--config FILE]}. */
public final class ProcessArgs {
  private ProcessArgs() {}

  public static DelayqConfig loadConfig(String[] args) {
    Path file = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--config") && i + 1 < args.length) {
        file = Path.of(args[++i]);
      } else {
        throw new IllegalArgumentException("unknown argument '" + args[i] + "' (usage: [--config FILE])");
      }
    }
    return new ConfigLoader().load(file, System.getenv());
  }
}
