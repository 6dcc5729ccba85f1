package dev.delayq.supervisor;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the launch scripts under bin/, for tests that run a JVM as they do. */
final class LaunchScript {
  private LaunchScript() {}

  /** Each {@code exec "$java" ...} command of the script, its continuation lines joined. */
  static List<String> execLines(String script) throws IOException {
    List<String> out = new ArrayList<>();
    StringBuilder current = null;
    for (String line : Files.readAllLines(SupervisorProcess.INSTALL.resolve(script))) {
      String text = line.strip();
      if (current == null && text.startsWith("exec \"$java\"")) {
        current = new StringBuilder();
      }
      if (current != null) {
        boolean more = text.endsWith("\\");
        current.append(more ? text.substring(0, text.length() - 1) : text).append(' ');
        if (!more) {
          out.add(current.toString().strip());
          current = null;
        }
      }
    }
    return out;
  }

  /**
   * The JVM options bin/delayq-supervisor gives the supervisor when DELAYQ_SUPERVISOR_OPTS is
   * unset: its defaults and the options it always adds (-D options of the install left out).
   */
  static List<String> supervisorJvmOptions() throws IOException {
    String exec = execLines("bin/delayq-supervisor").get(0);
    Matcher m = Pattern.compile("\\$\\{DELAYQ_SUPERVISOR_OPTS:-([^}]*)}((?:\\s+-XX:\\S+)*)").matcher(exec);
    if (!m.find()) {
      throw new AssertionError("bin/delayq-supervisor: no ${DELAYQ_SUPERVISOR_OPTS:-...} in " + exec);
    }
    List<String> options = new ArrayList<>(List.of(m.group(1).trim().split("\\s+")));
    String always = m.group(2).trim();
    if (!always.isEmpty()) {
      options.addAll(List.of(always.split("\\s+")));
    }
    return options;
  }
}
