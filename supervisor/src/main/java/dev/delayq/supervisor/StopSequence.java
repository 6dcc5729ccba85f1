package dev.delayq.supervisor;

/**
 * Where the {@link Supervisor} is, from running to down: a stop walks the steps in this order,
 * each once its children are all STOPPED (the workers drain first, so their jobs finish while
 * the scheduler and Redis are still there; Redis last, so nothing loses it mid-write). Only
 * {@code Supervisor} moves it, forward, in one place.
 */
enum StopSequence {
  /** No stop asked: children are started and restarted. */
  RUNNING,
  /** The workers drain (SIGKILL at the stop timeout). */
  WORKERS,
  /** The scheduler releases its lease and exits. */
  SCHEDULER,
  /** The embedded Redis writes its AOF and exits (a step with no child when Redis is not embedded). */
  REDIS,
  /** Every child is down: the control loop ends. */
  DONE;

  StopSequence next() {
    if (this == DONE) {
      throw new IllegalStateException("the stop sequence is already done");
    }
    return values()[ordinal() + 1];
  }
}
