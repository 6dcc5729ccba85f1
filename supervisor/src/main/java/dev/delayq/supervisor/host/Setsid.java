package dev.delayq.supervisor.host;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a command in a session of its own, so a Ctrl-C at the supervisor's terminal reaches the
 * supervisor alone. util-linux setsid execs in place (same PID) when its caller leads no
 * process group; without it the command runs as given.
 */
public final class Setsid {
  private static final String SETSID = findSetsid();

  private Setsid() {}

  /** {@code command} behind setsid, when the host has it. */
  public static List<String> command(List<String> command) {
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
