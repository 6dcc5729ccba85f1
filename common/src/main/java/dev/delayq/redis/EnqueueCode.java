package dev.delayq.redis;

/** What enqueue.lua answered for one job. */
public enum EnqueueCode {
  ACCEPTED, PENDING, DEAD, ENDED, TOO_LARGE,
  /** The if-pending option changed the pending job; the value is its due time now. */
  CHANGED,
  /** The if-pending option was refused: the job is running. */
  REFUSED_RUNNING,
  /** The if-pending option was refused: the job's record cannot be rewritten. */
  REFUSED_MALFORMED,
  /** enqueueFlow.lua: the job waits for other jobs; the value is how many it waits for. */
  WAITING,
  /** enqueueFlow.lua: a job it was to wait for had ended dead, cancelled or purged, and its policy said fail: it is dead. */
  DEPENDENCY_FAILED;

  static EnqueueCode of(long code) {
    return switch ((int) code) {
      case 1 -> ACCEPTED;
      case 0 -> PENDING;
      case 3 -> DEAD;
      case 2 -> ENDED;
      case -2 -> TOO_LARGE;
      case 4 -> CHANGED;
      case 5 -> REFUSED_RUNNING;
      case 6 -> REFUSED_MALFORMED;
      case 7 -> WAITING;
      case 8 -> DEPENDENCY_FAILED;
      default -> throw new IllegalStateException("enqueue.lua answered " + code);
    };
  }
}
