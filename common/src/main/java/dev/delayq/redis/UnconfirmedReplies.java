package dev.delayq.redis;

import dev.delayq.redis.Ack;
import dev.delayq.redis.Moved;
import dev.delayq.redis.ShardFailed;
import java.util.List;

/**
 * What a worker's call answered on the master when it ran there but fewer replicas than
 * redis.replicaAcks confirmed it in time ({@link ReplicaAcksException}, alone or as the cause of a
 * {@link ShardFailed}): the caller retries the call, and this tells it what its first try did.
 */
final class UnconfirmedReplies {
  private UnconfirmedReplies() {}

  /** As {@link RedisBroker#unconfirmedAck}. */
  static Ack ack(Throwable e) {
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

  /** As {@link RedisBroker#unconfirmedOutcome}. */
  static boolean outcome(Throwable e) {
    ReplicaAcksException r = unconfirmedCall(e);
    if (r == null) {
      return false;
    }
    Script script = r.script();
    long code = (Long) r.replies().get(0);
    return script == Script.MOVE_TO_DELAYED ? code != 0 : script == Script.DEAD_LETTER && code == 1;
  }

  /** As {@link RedisBroker#unconfirmedMove}. */
  static Moved move(Throwable e) {
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
