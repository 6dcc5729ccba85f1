package dev.delayq;

import java.time.Instant;

/**
 * The outcome of one enqueue: the job's id, whether it was accepted, and, when a job with the
 * same id existed, what became of it: kept as it was (then nothing changed and {@code dueAt} is
 * null), changed by the enqueue's {@link IfPending} option ({@code dueAt} is its due time now),
 * or refused because it runs or is dead.
 */
public record EnqueueResult(String id, boolean accepted, Instant dueAt, Outcome outcome) {

  /** What the enqueue did. */
  public enum Outcome {
    /** A new job. */
    ACCEPTED,
    /** A job with this id exists; it was left as it is. */
    KEPT,
    /** The pending job with this id was changed (its payload and/or due time). */
    CHANGED,
    /** Refused: the job with this id is running; nothing changed. */
    REFUSED_RUNNING,
    /** Refused: the job with this id is dead; nothing changed. */
    REFUSED_DEAD,
    /** Refused: the record of the job with this id cannot be rewritten; nothing changed. */
    REFUSED_MALFORMED
  }

  public EnqueueResult(String id, boolean accepted, Instant dueAt) {
    this(id, accepted, dueAt, accepted ? Outcome.ACCEPTED : Outcome.KEPT);
  }

  public boolean duplicate() {
    return !accepted;
  }

  /** True when the enqueue's if-pending option was refused: the existing job runs or is dead. */
  public boolean refused() {
    return outcome == Outcome.REFUSED_RUNNING || outcome == Outcome.REFUSED_DEAD
        || outcome == Outcome.REFUSED_MALFORMED;
  }

  /** One line for people about a job whose id existed. */
  public String describe() {
    return switch (outcome) {
      case ACCEPTED -> "job " + id + " enqueued, due at " + dueAt;
      case KEPT -> "a job with id " + id + " already exists: nothing changed";
      case CHANGED -> "the pending job " + id + " was changed: due at " + dueAt;
      case REFUSED_RUNNING -> "job " + id + " is running: it cannot be replaced (only a delayed or ready job can)";
      case REFUSED_DEAD -> "job " + id + " is dead: it cannot be replaced (delayq dead retry " + id + " runs it again)";
      case REFUSED_MALFORMED -> "job " + id + " has a record that cannot be rewritten: it was not replaced";
    };
  }
}
