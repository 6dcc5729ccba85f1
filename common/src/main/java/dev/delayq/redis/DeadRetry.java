package dev.delayq.redis;

/** What retrying one dead job did (retryDead.lua's code for it). */
public enum DeadRetry {
  /** Back on ready with attempt 1, due now; its last error kept as previousError. */
  RETRIED,
  /** Not dead (unknown, or somewhere else): nothing changed. */
  NOT_DEAD,
  /** Dead without a record: the id was dropped from dead, since nothing could ever run it. */
  DROPPED,
  /** Dead with a record that cannot be read or written back: left dead, unchanged. */
  UNREADABLE;

  static DeadRetry of(long code) {
    return switch ((int) code) {
      case 1 -> RETRIED;
      case 0 -> NOT_DEAD;
      case -1 -> DROPPED;
      case -2 -> UNREADABLE;
      default -> throw new IllegalStateException("retryDead.lua answered " + code);
    };
  }
}
