package dev.delayq;

/**
 * Decides when a {@link DelayQueue}'s enqueues go to Redis: at once ({@link #NOW}, the default),
 * or later, as the Spring starter's gate does inside a transaction, which holds them until the
 * commit so that a rolled-back transaction enqueues nothing and no job runs before its rows are
 * visible. Every enqueue method of {@code DelayQueue} ({@code delay}, {@code schedule},
 * {@code enqueue}, {@code enqueueAll}) passes through it; cancel, promote and the other changes
 * of a stored job do not.
 */
public interface EnqueueGate {

  /** Sends every enqueue at once. */
  EnqueueGate NOW = jobs -> false;

  /**
   * Offered each enqueue call once its jobs are checked and their ids chosen, before anything is
   * sent, on the enqueuing thread. Returns true when the gate keeps {@code jobs} and sends them
   * later with {@link HeldJobs#send()} (the caller then gets results with status
   * {@link EnqueueResult.Status#PENDING_COMMIT}); false to send them now as usual.
   */
  boolean hold(HeldJobs jobs);
}
