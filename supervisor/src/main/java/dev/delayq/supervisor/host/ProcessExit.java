package dev.delayq.supervisor.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Waits for a process that is not this one's child to end, closely. {@code ProcessHandle.onExit()}
 * of such a process sleeps 300 ms and more between its looks, and counts a zombie (ended, not yet
 * reaped by its parent) as alive: {@code stop} would return up to a second after the supervisor
 * had gone.
 */
public final class ProcessExit {
  private static final long POLL_MS = 20;

  private ProcessExit() {}

  /** True once {@code process} has ended (a zombie has); false when it still runs at the timeout. */
  public static boolean await(ProcessHandle process, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (process.isAlive() && !zombie(process.pid())) {
      if (System.nanoTime() >= deadline) {
        return false;
      }
      Thread.sleep(POLL_MS);
    }
    return true;
  }

  /** State Z (or X) in /proc/PID/stat: the process has exited and waits to be reaped. */
  static boolean zombie(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      int end = stat.lastIndexOf(')'); // the command name, in parentheses, may hold anything
      char state = end >= 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
      return state == 'Z' || state == 'X';
    } catch (IOException | RuntimeException e) {
      return false; // no /proc (macOS): isAlive() alone decides
    }
  }
}
