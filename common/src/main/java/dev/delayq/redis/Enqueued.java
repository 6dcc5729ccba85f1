package dev.delayq.redis;

/**
 * One job's answer: {@code value} is its due time when accepted, when it was dead-lettered for
 * DEAD, when its id is free again for ENDED, the payload's length for TOO_LARGE, else -1.
 */
public record Enqueued(EnqueueCode code, long value) {
  public boolean accepted() {
    return code == EnqueueCode.ACCEPTED;
  }

  public boolean duplicate() {
    return !accepted();
  }

  /** The due time of an accepted job, else -1. */
  public long dueAt() {
    return accepted() ? value : -1;
  }
}
