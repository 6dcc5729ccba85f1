package dev.delayq.redis;

/**
 * How many replicas must have a state-changing script's writes before the call counts as done
 * ({@code redis.replicaAcks}), and how long to wait for them. {@link #NONE}: the master's word is
 * enough.
 */
public record ReplicaAcks(int replicas, long timeoutMs) {
  public static final ReplicaAcks NONE = new ReplicaAcks(0, 0);

  public ReplicaAcks {
    if (replicas < 0 || timeoutMs < 0) {
      throw new IllegalArgumentException("replicas and timeout must not be negative");
    }
  }

  public boolean required() {
    return replicas > 0;
  }
}
