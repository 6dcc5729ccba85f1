package dev.delayq.supervisor;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts a child's process: its command in its own session (so a Ctrl-C at the supervisor's
 * terminal reaches the supervisor alone, which then stops the children in order), stdout and
 * stderr appended to its log file, stdin from /dev/null, and the environment of the contract
 * (DELAYQ_CHILD_NAME, DELAYQ_REDIS_URL, DELAYQ_SUPERVISOR_PID).
 */
final class ChildLauncher {
  /** util-linux setsid execs in place (same PID) when its caller leads no process group. */
  private static final String SETSID = findSetsid();

  private final Map<String, String> environment;
  private final Path workingDir;

  ChildLauncher(Map<String, String> environment, Path workingDir) {
    this.environment = Map.copyOf(environment);
    this.workingDir = workingDir;
  }

  Process launch(ChildSpec spec) throws IOException {
    Files.createDirectories(spec.logFile().getParent());
    Files.writeString(spec.logFile(), "--- " + OffsetDateTime.now() + " delayq supervisor starts "
        + spec.name() + ": " + String.join(" ", spec.command()) + System.lineSeparator(),
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    ProcessBuilder builder = new ProcessBuilder(command(spec.command()))
        .directory(workingDir.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(spec.logFile().toFile()));
    builder.environment().putAll(environment);
    builder.environment().put("DELAYQ_CHILD_NAME", spec.name());
    return builder.start();
  }

  static List<String> command(List<String> command) {
    List<String> full = new ArrayList<>(command.size() + 1);
    if (SETSID != null) {
      full.add(SETSID);
    }
    full.addAll(command);
    return full;
  }

  private static String findSetsid() {
    for (String dir : new String[] {"/usr/bin", "/bin", "/usr/local/bin"}) {
      File f = new File(dir, "setsid");
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    return null;
  }
}
