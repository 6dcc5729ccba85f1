package dev.delayq;

import java.time.Instant;

/**
 * What a change of a job that has not started did (promote, reschedule, edit): where the job
 * is now, or why it could not change. A refused change changed nothing.
 */
public record ChangeResult(String id, Status status, Instant dueAt, String detail) {

  /** Where the job is after the change, or why it was refused. */
  public enum Status {
    /** Changed; waits in delayed for {@code dueAt}. */
    DELAYED,
    /** Changed; due, waiting in ready for a worker. */
    READY,
    /** Refused: a consumer holds it (its handler runs or is about to). */
    RUNNING,
    /** Refused: it is dead-lettered (dead retry runs it again). */
    DEAD,
    /** Refused: it is due and waits for a worker that has its type's handler ({@code queue.handlerWait}). */
    WAITING_FOR_HANDLER,
    /** Refused: no such job (never enqueued, or done and forgotten). */
    UNKNOWN,
    /** Refused: its record cannot be read or written back ({@code detail} says why). */
    MALFORMED
  }

  public boolean changed() {
    return status == Status.DELAYED || status == Status.READY;
  }

  /** One line for people: "job x is now due at …", or why it was not changed. */
  public String describe() {
    return switch (status) {
      case DELAYED -> "job " + id + " is due at " + dueAt;
      case READY -> "job " + id + " is due now, waiting for a worker";
      case RUNNING -> "job " + id + " is running: only a delayed or ready job can be changed";
      case DEAD -> "job " + id + " is dead: only a delayed or ready job can be changed "
          + "(delayq dead retry " + id + " runs it again)";
      case WAITING_FOR_HANDLER -> "job " + id + " is due and waits for a worker with its type's handler: "
          + "only a delayed or ready job can be changed (cancel it, or start a worker that has the handler)";
      case UNKNOWN -> noSuchJob(id);
      case MALFORMED -> "job " + id + " was not changed: " + detail;
    };
  }

  /**
   * The refusal of an id no job holds, as every door words it (this result, the dashboard, the
   * CLI, which names the queue instead of the reasons).
   */
  public static String noSuchJob(String id) {
    return noJobWithId(id) + " (never enqueued, or already done)";
  }

  /** The start of {@link #noSuchJob}, for a door that goes on in its own words. */
  public static String noJobWithId(String id) {
    return "no job with id " + id;
  }

  static ChangeResult of(String id, String place, long dueAt) {
    if (place.startsWith("malformed: ")) {
      return new ChangeResult(id, Status.MALFORMED, null, place.substring("malformed: ".length()));
    }
    Status status = switch (place) {
      case "delayed" -> Status.DELAYED;
      case "ready" -> Status.READY;
      case "running" -> Status.RUNNING;
      case "dead" -> Status.DEAD;
      case "waiting" -> Status.WAITING_FOR_HANDLER;
      case "unknown" -> Status.UNKNOWN;
      default -> throw new IllegalStateException("changePending.lua answered '" + place + "'");
    };
    return new ChangeResult(id, status, dueAt < 0 ? null : Instant.ofEpochMilli(dueAt), null);
  }
}
