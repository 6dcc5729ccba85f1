package dev.delayq.scheduler;

import dev.delayq.process.ShardHealth;
import dev.delayq.redis.NodeInFlightException;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.ShardReply;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The leases of the queue's shards: a scheduler forwards and recovers only the shards whose
 * lease it holds. With one shard that is the leader lease: a second scheduler stands by instead
 * of doubling the work. With K shards the schedulers share them out: each one beats in the
 * queue's scheduler list, and holds at most its share, K over the schedulers alive (rounded up),
 * giving up what it holds past its share so that another takes it, and taking free shards up to
 * it. A scheduler that dies stops renewing: its leases and its beat expire after the TTL, and
 * the others' shares grow to take its shards. Renewed at a third of the TTL. (Two holders of one
 * shard for a moment would still not run a job twice: every move is one atomic script.)
 *
 * <p>The held leases are renewed in one round trip, each shard answered alone: a shard whose
 * master is lost fails only its own renewal, which its {@link #health()} records (it keeps the
 * lease it had until a renewal answers), and no free shard is taken while its calls fail. A beat
 * that fails keeps the last count of schedulers alive.
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
  private final ShardHealth health;
  private int heldCount;
  private long renewAtNanos;
  private int alive = 1;
  private boolean beatFailing;

  ShardLeases(RedisBroker broker, String owner, long ttlMs) {
    this(broker, owner, ttlMs, () -> 0);
  }

  /** {@code masterEpoch} grows at a change of master: a failing shard is tried again at once then. */
  ShardLeases(RedisBroker broker, String owner, long ttlMs, LongSupplier masterEpoch) {
    this.health = new ShardHealth(owner, broker.shards(), masterEpoch,
        "no forwards, recovery, lease renewal or trim there until a retry answers");
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
    if (shards > 1) {
      beat();
    }
    int share = (shards + alive - 1) / alive;
    hold(heldShards());
    List<Integer> toGiveUp = new ArrayList<>();
    for (int j = shards - 1; j >= 0 && heldCount > share; j--) {
      int s = (offset + j) % shards;
      // (a failing shard's lease is not given back: it lapses by itself, no call waits on its node)
      if (held[s] && !health.failing(s)) {
        toGiveUp.add(s);
      }
      set(s, false);
    }
    for (int s : released(toGiveUp)) {
      log.info("{}: gave up the lease of shard {} (its share is {} of {})", owner, s, share, shards);
    }
    for (int j = 0; j < shards && heldCount < share; j++) {
      int s = (offset + j) % shards;
      if (!held[s] && !health.failing(s)) {
        hold(List.of(s));
      }
    }
    renewAtNanos = now + ttlMs * 1_000_000 / 3;
    return heldCount > 0;
  }

  /**
   * Takes or renews the leases of {@code toHold} in one round trip. A shard whose call failed is
   * left as it was and held back by the health; with one shard the failure is thrown (the
   * outage path, as for any call of a one-shard queue).
   */
  private void hold(List<Integer> toHold) {
    for (ShardReply<Boolean> r : broker.scheduling().holdLeases(toHold, owner, ttlMs)) {
      if (r.failure() != null) {
        health.failedOrThrow(r.shard(), r.failure());
      } else {
        health.worked(r.shard());
        set(r.shard(), r.value());
      }
    }
  }

  /** Beats in the scheduler list and counts the live ones; a failed beat keeps the last count. */
  private void beat() {
    try {
      alive = broker.scheduling().schedulersAlive(owner, ttlMs);
      if (beatFailing) {
        beatFailing = false;
        log.info("{}: the scheduler list answers again", owner);
      }
    } catch (JedisException e) {
      if (!beatFailing) {
        beatFailing = true;
        log.warn("{}: could not beat in the scheduler list ({}); sharing the shards as among {} scheduler(s) "
            + "until it answers", owner, e.toString(), alive);
      }
    }
  }

  /** Which shards' calls fail now: shared by this scheduler's forwards, recoveries, renewals and trims. */
  ShardHealth health() {
    return health;
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

  /**
   * Gives up the leases of {@code toRelease} (a queue of several shards) in one round trip, each
   * master's on its own thread on a cluster, and returns those that were released. One whose call
   * failed or whose master hangs is left to lapse by itself: no shard's release waits on another's
   * node (one after another, a hung master held this thread until {@code redis.socketTimeout}).
   */
  private List<Integer> released(List<Integer> toRelease) {
    List<Integer> out = new ArrayList<>();
    for (ShardReply<Boolean> r : broker.scheduling().releaseLeases(toRelease, owner)) {
      if (r.failure() == null && r.value()) {
        out.add(r.shard());
      } else if (r.failure() != null && !(r.failure() instanceof NodeInFlightException)) {
        log.info("{}: could not release the lease of shard {} ({}); it lapses by itself", owner, r.shard(),
            r.failure().getMessage());
      }
    }
    return out;
  }

  void release() {
    if (shards == 1) {
      if (held[0] && !health.failing(0) && broker.scheduling().releaseLease(0, owner)) {
        log.info("{}: leader lease released", owner);
      }
      held[0] = false;
    } else {
      List<Integer> toRelease = new ArrayList<>();
      for (int s = 0; s < shards; s++) {
        if (held[s] && !health.failing(s)) {
          toRelease.add(s);
        }
        held[s] = false;
      }
      for (int s : released(toRelease)) {
        log.info("{}: lease of shard {} released", owner, s);
      }
    }
    heldCount = 0;
    if (shards > 1) {
      broker.scheduling().schedulerGone(owner);
    }
  }
}
