package dev.delayq;

/**
 * What a job that waits for others ({@link JobOptions#waitFor}) does when one of them does not end
 * done: it went dead, was cancelled, or was purged from dead. Chosen per job at enqueue; a job
 * that waits for several applies it to each. The default is {@link #FAIL}.
 */
public enum DependencyFailure {
  /**
   * The waiting job goes dead too, with the last error "dependency X ended dead" (or cancelled,
   * purged), and so do the jobs that wait for it with this policy, down the chain. No handler runs.
   */
  FAIL("fail"),
  /** The failed dependency counts as ended: once every other one ended, the waiting job runs anyway. */
  RUN("run"),
  /**
   * The waiting job stays waiting while the dependency is dead, until an operator retries it (and
   * it then ends done, releasing the job) or cancels the waiting job. A cancelled or purged
   * dependency cannot come back: it fails the waiting job as {@link #FAIL} would.
   */
  WAIT("wait");

  private final String wire;

  DependencyFailure(String wire) {
    this.wire = wire;
  }

  /** The name enqueueFlow.lua takes. */
  String wire() {
    return wire;
  }
}
