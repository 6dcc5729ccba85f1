package dev.delayq;

/**
 * Decides when a {@link DelayQueue}'s enqueues go to Redis: at once ({@link #NOW}, the default),
 * or later, as the Spring starter's gate does inside a transaction, which holds them until the
 * commit so that a rolled-back transaction enqueues nothing and no job runs before its rows are
 * visible. Every enqueue method of {@code DelayQueue} ({@code delay}, {@code schedule},
 * {@code enqueue}, {@code enqueueAll}) passes through it; cancel, promote and the other changes
 * of a stored job do not.
 *
 * <p>Workflow calls do not pass through it either: a job that waits for others or is awaitable,
 * a batch (open, add, close, cancel), a chain and a fan-in go to Redis at once, inside a
 * transaction too, and a rollback does not take them back. A batch's steps must reach Redis in
 * their order (a close sent before the adds it follows would fire the callback of an empty
 * batch), and only workflow jobs can be waited for, so none of them depends on a held job. In an
 * {@code enqueueAll} that mixes both, the plain jobs are held and the workflow ones sent.
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
