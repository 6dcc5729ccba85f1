package dev.delayq.process;

import java.util.Map;

/**
 * What the supervisor hands a child through its environment: the child's name (scheduler,
 * worker-1, …), the supervisor's PID, and the delayq home that relative paths (jobs/) are
 * resolved against. A process started by hand gets a name of its own and the working directory.
 */
public record ChildEnvironment(String name, long supervisorPid, java.nio.file.Path home) {
  public static final String NAME = "DELAYQ_CHILD_NAME";
  public static final String SUPERVISOR_PID = "DELAYQ_SUPERVISOR_PID";
  public static final String HOME = "DELAYQ_HOME";

  public static ChildEnvironment read(Map<String, String> env, String defaultName) {
    String name = env.getOrDefault(NAME, defaultName);
    long pid = 0;
    String text = env.get(SUPERVISOR_PID);
    if (text != null && !text.isBlank()) {
      try {
        pid = Long.parseLong(text.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(SUPERVISOR_PID + " = '" + text + "': not a process id");
      }
    }
    String home = env.get(HOME);
    return new ChildEnvironment(name, pid,
        java.nio.file.Path.of(home == null || home.isBlank() ? "" : home).toAbsolutePath());
  }
}
