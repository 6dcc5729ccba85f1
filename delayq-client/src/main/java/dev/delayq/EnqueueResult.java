package dev.delayq;

import java.time.Instant;

/**
 * The outcome of one enqueue: the job's id and its {@link Status}. An ACCEPTED job was written;
 * a CHANGED one was the pending job with this id, changed by the enqueue's {@link IfPending}
 * option; PENDING_COMMIT means an {@link EnqueueGate} holds it until the transaction the call ran in
 * commits (nothing was sent yet; the id is the one it will have); a WAITING job was written and
 * waits for other jobs; a DEPENDENCY_FAILED one was written dead; for every other status nothing
 * was changed. {@code dueAt} is set when accepted or changed; {@code idFreeAt} when FINISHED: the
 * id stays taken (queue.idRetention) until then.
 */
public record EnqueueResult(String id, Status status, Instant dueAt, Instant idFreeAt) {

  /** Where the id stood when the enqueue met it. */
  public enum Status {
    /** A new job, now delayed or ready. */
    ACCEPTED,
    /** A job with this id is still pending: delayed, ready or running (kept as it is). */
    PENDING,
    /** A job with this id went dead and is kept (until `dead purge` or `dead retry`). */
    DEAD,
    /** A job with this id already finished (done, cancelled, dead and purged) within queue.idRetention. */
    FINISHED,
    /** The if-pending option changed the delayed or ready job with this id (payload and/or due time). */
    CHANGED,
    /** The if-pending option was refused: the job with this id is running; nothing changed. */
    REFUSED_RUNNING,
    /** The if-pending option was refused: the job's record cannot be rewritten; nothing changed. */
    REFUSED_MALFORMED,
    /**
     * Held until the transaction the call ran in commits, then sent; nothing is sent if it rolls
     * back. The id is known now (store it in your row); a delay counts from the commit.
     */
    PENDING_COMMIT,
    /**
     * A new job, accepted, that waits for other jobs ({@link JobOptions#waitFor}): it falls due
     * (after its delay) once they ended.
     */
    WAITING,
    /**
     * A new job that is dead at once: a job it was to wait for had already ended dead, cancelled or
     * purged, and its {@link DependencyFailure} said FAIL (its last error names that job).
     */
    DEPENDENCY_FAILED
  }

  static EnqueueResult pendingCommit(String id) {
    return new EnqueueResult(id, Status.PENDING_COMMIT, null, null);
  }

  /** True when a new job was written that will run: ACCEPTED, or WAITING for other jobs. */
  public boolean accepted() {
    return status == Status.ACCEPTED || status == Status.WAITING;
  }

  /** True when the id was taken (CHANGED included: no new job was made). */
  public boolean duplicate() {
    return !accepted() && !pendingCommit() && status != Status.DEPENDENCY_FAILED;
  }

  /** True when the job waits for the commit of the transaction the call ran in: nothing sent yet. */
  public boolean pendingCommit() {
    return status == Status.PENDING_COMMIT;
  }

  /** True when the enqueue's if-pending option was refused: the job with this id runs (or its record is unreadable). */
  public boolean refused() {
    return status == Status.REFUSED_RUNNING || status == Status.REFUSED_MALFORMED;
  }

  /** One line for people. */
  public String describe() {
    return switch (status) {
      case ACCEPTED -> "job " + id + " enqueued, due at " + dueAt;
      case PENDING -> "a job with id " + id + " already exists: nothing changed";
      case DEAD -> "a job with id " + id + " is dead: nothing changed (delayq dead retry " + id + " runs it again)";
      case FINISHED -> "a job with id " + id + " already ran; the id stays taken until " + idFreeAt;
      case CHANGED -> "the pending job " + id + " was changed: due at " + dueAt;
      case REFUSED_RUNNING -> "job " + id + " is running: it cannot be replaced (only a delayed or ready job can)";
      case REFUSED_MALFORMED -> "job " + id + " has a record that cannot be rewritten: it was not replaced";
      case PENDING_COMMIT -> "job " + id + " is sent once the transaction commits (nothing if it rolls back)";
      case WAITING -> "job " + id + " enqueued: it waits for other jobs, and falls due after its delay once they ended";
      case DEPENDENCY_FAILED -> "job " + id + " is dead: a job it was to wait for had ended without success "
          + "(delayq inspect " + id + " names it)";
    };
  }
}
