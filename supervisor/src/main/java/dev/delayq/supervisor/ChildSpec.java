package dev.delayq.supervisor;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What to run for one child and how to treat it: its command line, its log file and its restart
 * policy (OTP's child spec).
 *
 * @param startGrace how long a fresh process must stay alive to count as RUNNING
 * @param stopTimeout how long after SIGTERM the child is SIGKILLed
 */
record ChildSpec(String name, Role role, List<String> command, Path logFile, Restart restart,
    Duration startGrace, Duration stopTimeout) {

  /** OTP's restart types. */
  enum Restart {
    /** Restarted whatever its exit code (the embedded Redis: it never exits on its own for good). */
    PERMANENT,
    /** Restarted after a non-zero exit; an exit 0 is a deliberate end and is left alone. */
    TRANSIENT,
    /** Never restarted. */
    TEMPORARY
  }

  ChildSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(role, "role");
    command = List.copyOf(command);
    Objects.requireNonNull(restart, "restart");
    Objects.requireNonNull(startGrace, "startGrace");
    Objects.requireNonNull(stopTimeout, "stopTimeout");
    if (command.isEmpty()) {
      throw new IllegalArgumentException(name + ": empty command");
    }
  }

  /** True when an exit with {@code code} calls for a restart under this spec's policy. */
  boolean restartsAfter(int code) {
    return switch (restart) {
      case PERMANENT -> true;
      case TRANSIENT -> code != 0;
      case TEMPORARY -> false;
    };
  }
}
