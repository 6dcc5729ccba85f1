package dev.delayq.supervisor;

import java.io.IOException;

/**
 * How the {@link Supervisor} gets a process for a child: its one way to make processes, so a
 * test can drive the control loop with processes of its own (supervisord's tests swap the
 * launcher the same way). {@link ProcessLauncher} is the real one.
 */
interface ChildLauncher {
  /** Starts the child's process; what it throws, the supervisor counts as a failed start. */
  Process launch(ChildSpec spec) throws IOException;

  /**
   * Returns once the embedded Redis launched as {@code process} answers; throws when it exited
   * or did not answer in time (a {@link StartRefusedException} when the operator can fix it).
   */
  void awaitRedis(ChildSpec spec, Process process) throws InterruptedException;
}
