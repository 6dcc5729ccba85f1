package dev.delayq.redis;

import java.util.List;

/**
 * What a worker's call answered on the master when it ran there but fewer replicas than
 * redis.replicaAcks confirmed it in time ({@link ReplicaAcksException}, alone or as the cause of a
 * {@link ShardFailed}): the caller retries the call, and this tells it what its first try did.
 */
public final class UnconfirmedReplies {
  private UnconfirmedReplies() {}

  /**
   * What the acknowledgement folded into a call (claimReady, start, releaseClaimed, or an
   * acknowledgement of one delivery alone) answered, when that call ran on the master but fewer
   * replicas than redis.replicaAcks confirmed it in time ({@code e} a {@link ReplicaAcksException},
   * or a {@link ShardFailed} of one): the caller retries it, and a retry that finds the delivery
   * gone may be meeting this very acknowledgement. NONE for any other failure, or when the call
   * held no acknowledgement.
   */
  public static Ack ack(Throwable e) {
    ReplicaAcksException r = unconfirmedCall(e);
    if (r == null) {
      return Ack.NONE;
    }
    Script script = r.script();
    if (script != Script.CLAIM_READY && script != Script.START && script != Script.RELEASE_CLAIMED
        && script != Script.ACK) {
      return Ack.NONE;
    }
    List<?> reply = (List<?>) r.replies().get(0);
    return reply.isEmpty() ? Ack.NONE : Ack.of(reply.get(0)); // each leads with its acknowledgement
  }

  /**
   * True when {@code e} says that a retry, reschedule, dead-letter or complete call ran on the master and
   * applied its outcome, but fewer replicas than redis.replicaAcks confirmed it in time: the
   * caller retries it, and a retry that finds the delivery gone may be meeting this very outcome.
   */
  public static boolean outcome(Throwable e) {
    ReplicaAcksException r = unconfirmedCall(e);
    if (r == null) {
      return false;
    }
    Script script = r.script();
    long code = (Long) r.replies().get(0);
    return script == Script.MOVE_TO_DELAYED ? code != 0
        : (script == Script.DEAD_LETTER || script == Script.COMPLETE) && code == 1;
  }

  /**
   * What a move to delayed (retry, reschedule, wait) answered on the master when the call ran but
   * fewer replicas than redis.replicaAcks confirmed it ({@code e} as for {@link #unconfirmedOutcome}):
   * MOVED, or DEAD when the job went to dead instead; null for any other failure or script, or
   * when that try was fenced. A retry refused as the echo of this try reports what it did.
   */
  public static Moved move(Throwable e) {
    ReplicaAcksException r = unconfirmedCall(e);
    if (r == null || r.script() != Script.MOVE_TO_DELAYED) {
      return null;
    }
    Moved m = Outcomes.moved((Long) r.replies().get(0));
    return m == Moved.FENCED ? null : m;
  }

  /** The failure of one script call that ran but whose writes replicas did not confirm, or null. */
  private static ReplicaAcksException unconfirmedCall(Throwable e) {
    Throwable t = e instanceof ShardFailed ? e.getCause() : e;
    if (!(t instanceof ReplicaAcksException r) || r.replies().size() != 1 || r.replies().get(0) == null) {
      return null;
    }
    return r;
  }
}
