package dev.delayq.scheduler;

import dev.delayq.redis.RedisBroker;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases of the queue's shards: a scheduler forwards and recovers only the shards whose
 * lease it holds. With one shard that is the leader lease: a second scheduler stands by instead
 * of doubling the work. With K shards the schedulers share them out: each one beats in the
 * queue's scheduler list, and holds at most its share, K over the schedulers alive (rounded up),
 * giving up what it holds past its share so that another takes it, and taking free shards up to
 * it. A scheduler that dies stops renewing: its leases and its beat expire after the TTL, and
 * the others' shares grow to take its shards. Renewed at a third of the TTL. (Two holders of one
 * shard for a moment would still not run a job twice: every move is one atomic script.)
 */
final class ShardLeases {
  private static final Logger log = LoggerFactory.getLogger(ShardLeases.class);

  private final RedisBroker broker;
  private final String owner;
  private final long ttlMs;
  private final int shards;
  /** Where this scheduler starts looking for free shards, so that schedulers take different ones. */
  private final int offset;
  private final boolean[] held;
  private int heldCount;
  private long renewAtNanos;

  ShardLeases(RedisBroker broker, String owner, long ttlMs) {
    this.broker = broker;
    this.owner = owner;
    this.ttlMs = ttlMs;
    this.shards = broker.shards();
    this.offset = Math.floorMod(owner.hashCode(), shards);
    this.held = new boolean[shards];
  }

  /** Takes, renews or gives up leases when due; true while this scheduler holds any shard. */
  boolean tick() {
    long now = System.nanoTime();
    if (heldCount > 0 && now < renewAtNanos) {
      return true;
    }
    int alive = shards == 1 ? 1 : broker.schedulersAlive(owner, ttlMs);
    int share = (shards + alive - 1) / alive;
    for (int s = 0; s < shards; s++) {
      if (held[s]) {
        set(s, broker.holdLease(s, owner, ttlMs));
      }
    }
    for (int j = shards - 1; j >= 0 && heldCount > share; j--) {
      int s = (offset + j) % shards;
      if (held[s] && broker.releaseLease(s, owner)) {
        log.info("{}: gave up the lease of shard {} (its share is {} of {})", owner, s, share, shards);
      }
      set(s, false);
    }
    for (int j = 0; j < shards && heldCount < share; j++) {
      int s = (offset + j) % shards;
      if (!held[s]) {
        set(s, broker.holdLease(s, owner, ttlMs));
      }
    }
    renewAtNanos = now + ttlMs * 1_000_000 / 3;
    return heldCount > 0;
  }

  private void set(int shard, boolean holds) {
    if (holds == held[shard]) {
      return;
    }
    held[shard] = holds;
    heldCount += holds ? 1 : -1;
    if (shards == 1) {
      log.info(holds ? "{}: leader lease taken; forwarding" : "{}: leader lease lost; standing by", owner);
    } else {
      log.info(holds ? "{}: lease of shard {} taken; forwarding it" : "{}: lease of shard {} lost",
          owner, shard);
    }
  }

  /** When to call {@link #tick()} next, on System.nanoTime. */
  long nextTickNanos() {
    return renewAtNanos;
  }

  boolean isHeld() {
    return heldCount > 0;
  }

  boolean holds(int shard) {
    return held[shard];
  }

  /** The shards whose lease this scheduler holds, in order. */
  List<Integer> heldShards() {
    List<Integer> out = new ArrayList<>(heldCount);
    for (int s = 0; s < shards; s++) {
      if (held[s]) {
        out.add(s);
      }
    }
    return out;
  }

  void release() {
    for (int s = 0; s < shards; s++) {
      if (held[s] && broker.releaseLease(s, owner)) {
        log.info(shards == 1 ? "{}: leader lease released" : "{}: lease of shard " + s + " released", owner);
      }
      held[s] = false;
    }
    heldCount = 0;
    if (shards > 1) {
      broker.schedulerGone(owner);
    }
  }
}
