package dev.delayq.process;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * What the supervisor hands a child through its environment: the child's name (scheduler,
 * worker-1, …), the supervisor's PID, the delayq home that relative paths (jobs/) are resolved
 * against, and the name of this host. A process started by hand gets a name of its own, the
 * working directory and the machine's host name.
 *
 * <p>The host goes into every consumer id, because process ids repeat across machines (and
 * every container's JVM may well be pid 7): two hosts on one queue must never share an
 * in-flight list, nor take back each other's live jobs when one of their workers exits.
 */
public record ChildEnvironment(String name, long supervisorPid, Path home, String host) {
  public static final String NAME = "DELAYQ_CHILD_NAME";
  public static final String SUPERVISOR_PID = "DELAYQ_SUPERVISOR_PID";
  public static final String HOME = "DELAYQ_HOME";
  public static final String HOST = "DELAYQ_HOST";

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
        Path.of(home == null || home.isBlank() ? "" : home).toAbsolutePath(), host(env));
  }

  /** DELAYQ_HOST, else the machine's host name, in the characters an id may hold. */
  public static String host(Map<String, String> env) {
    String host = env.get(HOST);
    if (host == null || host.isBlank()) {
      host = machineHostName();
    }
    String clean = host.trim().replaceAll("[^A-Za-z0-9._-]", "_");
    return clean.isEmpty() ? "localhost" : clean;
  }

  private static String machineHostName() {
    try {
      return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
    } catch (IOException | RuntimeException notLinux) {
      try {
        return InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        return "localhost";
      }
    }
  }

  /** The start of the ids of every consumer of one worker process: {@code worker-1@host:pid:}. */
  public static String consumerPrefix(String child, String host, long pid) {
    return child + "@" + host + ":" + pid + ":";
  }
}
