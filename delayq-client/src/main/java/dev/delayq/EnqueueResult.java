package dev.delayq;

import java.time.Instant;

/**
 * The outcome of one enqueue: the job's id, and whether it was accepted or an earlier job
 * with the same id already existed (then nothing was changed and {@code dueAt} is null).
 */
public record EnqueueResult(String id, boolean accepted, Instant dueAt) {
  public boolean duplicate() {
    return !accepted;
  }
}
