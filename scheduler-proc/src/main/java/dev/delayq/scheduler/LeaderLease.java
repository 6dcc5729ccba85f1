package dev.delayq.scheduler;

import dev.delayq.redis.RedisBroker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader lease: only the scheduler holding it forwards and recovers, so a second
 * scheduler stands by instead of doubling the work. Renewed at a third of its TTL. (Two
 * leaders for a moment would still not run a job twice: every move is one atomic script.)
 */
final class LeaderLease {
  private static final Logger log = LoggerFactory.getLogger(LeaderLease.class);

  private final RedisBroker broker;
  private final String owner;
  private final long ttlMs;
  private boolean held;
  private long renewAtNanos;

  LeaderLease(RedisBroker broker, String owner, long ttlMs) {
    this.broker = broker;
    this.owner = owner;
    this.ttlMs = ttlMs;
  }

  /** Takes or renews the lease when due; true while this scheduler is the leader. */
  boolean tick() {
    long now = System.nanoTime();
    if (held && now < renewAtNanos) {
      return true;
    }
    boolean holds = broker.holdLease(owner, ttlMs);
    if (holds != held) {
      log.info(holds ? "{}: leader lease taken; forwarding" : "{}: leader lease lost; standing by", owner);
    }
    held = holds;
    renewAtNanos = now + ttlMs * 1_000_000 / 3;
    return held;
  }

  /** When to call {@link #tick()} next, on System.nanoTime. */
  long nextTickNanos() {
    return renewAtNanos;
  }

  boolean isHeld() {
    return held;
  }

  void release() {
    if (held && broker.releaseLease(owner)) {
      log.info("{}: leader lease released", owner);
    }
    held = false;
  }
}
