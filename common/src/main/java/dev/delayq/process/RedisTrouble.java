package dev.delayq.process;

import dev.delayq.redis.RedisErrors;
import dev.delayq.redis.ReplicaAcksException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * What a failed Redis call met, the one place that says so for every line a process logs of it
 * (its {@link OutageLog}, and what the ack sender and the finisher say when they give up at
 * shutdown): Redis gone or cut off, Redis answering while too few replicas confirm its writes
 * ({@code redis.replicaAcks}), or Redis answering with an error (OOM, BUSY, LOADING, MISCONF...).
 * Each is retried the same way; only what is said differs, so an operator looks in the right place.
 */
public enum RedisTrouble {
  /** No answer: connection refused, reset or timed out (and anything not told apart below). */
  UNREACHABLE,
  /** The call ran on the master, but fewer replicas than redis.replicaAcks confirmed it in time. */
  TOO_FEW_REPLICAS,
  /** Redis answered the call with an error reply. */
  ERROR_REPLY;

  /** What {@code e} (or a cause of it, such as a shard's failure) met. */
  public static RedisTrouble of(Throwable e) {
    if (shortfall(e) != null) {
      return TOO_FEW_REPLICAS;
    }
    return errorReply(e) != null ? ERROR_REPLY : UNREACHABLE;
  }

  /**
   * What this trouble is, for "... at shutdown": "Redis unreachable", or with {@code still} "Redis
   * still unreachable" (those two as they always were), and likewise for the others, an error reply
   * with its text (escaped: a script's error may carry what a caller passed).
   */
  public String said(Throwable e, boolean still) {
    return switch (this) {
      case UNREACHABLE -> still ? "Redis still unreachable" : "Redis unreachable";
      case TOO_FEW_REPLICAS -> (still ? "too few replicas still acknowledge" : "too few replicas acknowledge")
          + " the writes (redis.replicaAcks)";
      case ERROR_REPLY -> (still ? "Redis still answers with an error: " : "Redis answered with an error: ")
          + errorText(e);
    };
  }

  /** The replicas' shortfall {@code e} is, or was caused by; null when none. */
  static ReplicaAcksException shortfall(Throwable e) {
    return RedisErrors.causeOf(e, ReplicaAcksException.class);
  }

  /** The error reply's text {@code e} carries, escaped for a log line. */
  static String errorText(Throwable e) {
    JedisDataException d = errorReply(e);
    return LogText.escape(d == null ? null : d.getMessage());
  }

  private static JedisDataException errorReply(Throwable e) {
    return RedisErrors.causeOf(e, JedisDataException.class);
  }
}
