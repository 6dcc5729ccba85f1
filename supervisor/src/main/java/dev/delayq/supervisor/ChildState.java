package dev.delayq.supervisor;

import java.util.EnumSet;
import java.util.Set;

/**
 * The life of one supervised child (supervisord's vocabulary). {@link #canMoveTo} is the whole
 * transition table; {@link Child#moveTo} refuses anything else.
 */
enum ChildState {
  /** Not running and not meant to be (before the first start, after stop or removal). */
  STOPPED,
  /** Launched, not yet alive for its start grace. */
  STARTING,
  /** Alive past its start grace. */
  RUNNING,
  /** Exited abnormally; waits out its backoff before it is started again. */
  BACKOFF,
  /** Asked to exit (SIGTERM); SIGKILL follows at its stop deadline. */
  STOPPING,
  /** Exited on its own in a way its restart policy leaves alone (a transient child's exit 0). */
  EXITED,
  /** Restarted too often in the restart period; left down until the next reload. */
  FATAL;

  boolean canMoveTo(ChildState next) {
    Set<ChildState> legal = switch (this) {
      case STOPPED -> EnumSet.of(STARTING);
      case STARTING -> EnumSet.of(RUNNING, BACKOFF, EXITED, FATAL, STOPPING);
      case RUNNING -> EnumSet.of(BACKOFF, EXITED, FATAL, STOPPING);
      case BACKOFF -> EnumSet.of(STARTING, STOPPED);
      case STOPPING -> EnumSet.of(STOPPED);
      case EXITED, FATAL -> EnumSet.of(STARTING, STOPPED);
    };
    return legal.contains(next);
  }

  /** A process of this child may be alive (it was launched and its exit is not yet seen). */
  boolean live() {
    return this == STARTING || this == RUNNING || this == STOPPING;
  }
}
