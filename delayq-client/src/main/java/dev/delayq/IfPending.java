package dev.delayq;

import dev.delayq.redis.PendingRule;

/**
 * What an enqueue does when a job with its id exists and has not started (still delayed or
 * ready): debounce and replace by id. A job that runs or is dead is never changed: the enqueue
 * is refused ({@link EnqueueResult.Outcome#REFUSED_RUNNING}, {@link EnqueueResult.Outcome#REFUSED_DEAD}).
 * The check and the change are one script, so no scheduler or consumer sees a half-changed job.
 */
public enum IfPending {
  /** Keep the existing job as it is (the default: an enqueue by id is idempotent). */
  KEEP(PendingRule.KEEP),
  /** Replace its payload with the new one; its due time stays. */
  REPLACE_PAYLOAD(PendingRule.REPLACE_PAYLOAD),
  /** Move its due time to the new one (debounce: run once, a delay after the last enqueue). */
  PUSH_DUE(PendingRule.PUSH_DUE),
  /** Both: the new payload and the new due time. */
  REPLACE_AND_PUSH(PendingRule.REPLACE_AND_PUSH);

  private final PendingRule rule;

  IfPending(PendingRule rule) {
    this.rule = rule;
  }

  /** The gateway's name for this choice. */
  public PendingRule rule() {
    return rule;
  }
}
