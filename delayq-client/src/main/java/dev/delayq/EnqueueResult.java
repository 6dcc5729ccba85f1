package dev.delayq;

import java.time.Instant;

/**
 * The outcome of one enqueue: the job's id and its {@link Status}. Only an ACCEPTED job was
 * written; for every other status nothing was changed. {@code dueAt} is set when accepted;
 * {@code idFreeAt} when FINISHED: the id stays taken (queue.idRetention) until then.
 */
public record EnqueueResult(String id, Status status, Instant dueAt, Instant idFreeAt) {

  /** Where the id stood when the enqueue met it. */
  public enum Status {
    /** A new job, now delayed or ready. */
    ACCEPTED,
    /** A job with this id is still pending: delayed, ready or running. */
    PENDING,
    /** A job with this id went dead and is kept (until `dead purge` or `dead retry`). */
    DEAD,
    /** A job with this id already finished (done, cancelled, dead and purged) within queue.idRetention. */
    FINISHED
  }

  public boolean accepted() {
    return status == Status.ACCEPTED;
  }

  /** True when the id was taken: nothing was changed. */
  public boolean duplicate() {
    return !accepted();
  }
}
