package dev.delayq.redis;

import java.util.List;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A script ran on the master but fewer replicas than {@code redis.replicaAcks} confirmed its
 * writes in time: the change may be lost if the master fails now, so it does not count as done.
 * A producer should enqueue again with the same id; acknowledgements are retried. The replies
 * of the script calls are kept for callers that must undo what they got (a claim).
 */
public final class ReplicaAcksException extends JedisException {
  private final Script script;
  private final long acked;
  private final ReplicaAcks wanted;
  private final transient List<Object> replies;

  ReplicaAcksException(Script script, long acked, ReplicaAcks wanted, List<Object> replies) {
    super(script + ": only " + acked + " of " + wanted.replicas() + " replica(s) confirmed the write "
        + "within " + wanted.timeoutMs() + " ms (redis.replicaAcks: " + wanted.replicas()
        + "); it is on the master but not durable, so it does not count as done");
    this.script = script;
    this.acked = acked;
    this.wanted = wanted;
    this.replies = replies;
  }

  /** How many replicas confirmed the writes in time (fewer than {@link #wanted()} asks for). */
  public long acked() {
    return acked;
  }

  /** How many replicas redis.replicaAcks asks for, and how long the call waited for them. */
  public ReplicaAcks wanted() {
    return wanted;
  }

  /** The script whose calls ran unconfirmed. */
  public Script script() {
    return script;
  }

  /** What the script calls answered, in order, although their writes are not confirmed. */
  public List<Object> replies() {
    return replies;
  }
}
