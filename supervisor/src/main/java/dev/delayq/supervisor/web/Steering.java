package dev.delayq.supervisor.web;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the web side may ask of the supervisor. Every call becomes an event on the supervisor's
 * queue and is answered by its control thread, the only one that touches the child table; the
 * futures complete there. Safe to call from any thread.
 */
public interface Steering {

  /** The children as the control thread saw them, and the worker pool size asked for. */
  CompletableFuture<Processes> processes();

  /** Resize the worker pool, as {@code reload --workers N}; completes with a one-line summary. */
  CompletableFuture<String> resize(int workers);

  /**
   * Restart one child; completes with a one-line summary, or exceptionally with
   * IllegalArgumentException (no such child) or IllegalStateException (not now).
   */
  CompletableFuture<String> restart(String child);

  /** One child as {@code status --json} shows it. */
  record ChildRow(String name, String role, Long pid, String state, int restarts,
      Integer lastExitCode, long uptimeMs) {}

  /** The supervisor's PID, its children, and the number of workers asked for. */
  record Processes(long supervisorPid, int workers, List<ChildRow> children) {}
}
