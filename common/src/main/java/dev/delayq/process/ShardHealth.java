package dev.delayq.process;

import dev.delayq.redis.NodeInFlightException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Which shards of a queue a process's calls fail on now, so that one failing shard is held back
 * alone and the others go on. On a cluster each shard is a slot of one master: a killed master
 * (until its replica takes over), or, with {@code redis.replicaAcks}, a promoted master that has
 * no replica yet (every WAIT there falls short) fails the calls of its shards only. Before, one
 * such shard stopped the whole worker: the acknowledgements of every shard went in one call that
 * failed as a whole, and a consumer that met the failing shard backed off and gave nothing back
 * until every one of its acknowledgements, in every shard, was sent.
 *
 * <p>A failing shard is tried again after a backoff (50 ms doubling to 1 s), by one caller at a
 * time ({@link #mayCall}); a change of master since its failure makes it due at once: the failed
 * node's replica has taken over. Shared by a worker's ack sender, consumers and shard watch; the
 * scheduler has one per queue for its forwards, recoveries, lease renewals and trims.
 */
public final class ShardHealth {
  private static final Logger log = LoggerFactory.getLogger(ShardHealth.class);
  private static final long FIRST_RETRY_NANOS = 50_000_000L;
  private static final long MOST_RETRY_NANOS = 1_000_000_000L;

  private final String name;
  private final String heldBack;
  private final LongSupplier masterEpoch;
  // per shard, guarded by this
  private final boolean[] failing;
  private final long[] failingSince;
  private final long[] retryAt;
  private final long[] backoff;
  private final long[] epochAtFailure;

  public ShardHealth(String name, int shards, LongSupplier masterEpoch) {
    this(name, shards, masterEpoch, "its calls retried");
  }

  /**
   * {@code heldBack} says in the one WARN of a shard that starts failing what the process does
   * about it meanwhile.
   */
  public ShardHealth(String name, int shards, LongSupplier masterEpoch, String heldBack) {
    this.name = name;
    this.heldBack = heldBack;
    this.masterEpoch = masterEpoch;
    this.failing = new boolean[shards];
    this.failingSince = new long[shards];
    this.retryAt = new long[shards];
    this.backoff = new long[shards];
    this.epochAtFailure = new long[shards];
  }

  /** Health of a queue whose shards never fail (no calls are held back). */
  public static ShardHealth unwatched(int shards) {
    return new ShardHealth("?", shards, () -> 0);
  }

  public int shards() {
    return failing.length;
  }

  /** True while the last call to {@code shard} failed and none has worked since. */
  public synchronized boolean failing(int shard) {
    return failing[shard];
  }

  /**
   * Whether a call to {@code shard} may go now: it is not failing, or its retry is due; then this
   * caller makes it, and the next retry waits for the backoff again.
   */
  public synchronized boolean mayCall(int shard) {
    if (!failing[shard]) {
      return true;
    }
    long now = System.nanoTime();
    if (now - retryAt[shard] < 0 && masterEpoch.getAsLong() == epochAtFailure[shard]) {
      return false;
    }
    retryAt[shard] = now + backoff[shard];
    epochAtFailure[shard] = masterEpoch.getAsLong();
    return true;
  }

  /** When the next try of a failing shard is due, on System.nanoTime (now when it is not failing). */
  public synchronized long retryAt(int shard) {
    return failing[shard] ? retryAt[shard] : System.nanoTime();
  }

  /** True when the master changed since {@code shard} last failed: its retry is due now. */
  public synchronized boolean masterChangedSinceFailure(int shard) {
    return failing[shard] && masterEpoch.getAsLong() != epochAtFailure[shard];
  }

  /**
   * A call to {@code shard} failed with {@code e}: on a queue of several shards that shard is held
   * back ({@link #failed}); on one shard there is nothing to hold back alone, and {@code e} is
   * thrown, to the caller's outage path.
   */
  public void failedOrThrow(int shard, JedisException e) {
    if (e instanceof NodeInFlightException) {
      // not sent: its node has not answered the call before (it hangs), whose outcome is unknown
      // yet; that shard waits for it, and is not failing until a call of its own fails
      return;
    }
    if (failing.length == 1) {
      throw e;
    }
    failed(shard, e);
  }

  /** A call to {@code shard} failed with {@code e}: it is held back until a retry works. */
  public synchronized void failed(int shard, Exception e) {
    long now = System.nanoTime();
    if (!failing[shard]) {
      failing[shard] = true;
      failingSince[shard] = now;
      backoff[shard] = FIRST_RETRY_NANOS;
      if (failing.length > 1) { // on one shard the outage log says it
        log.warn("{}: calls to shard {} fail ({}); that shard is held back alone ({}) while the others go on",
            name, shard, e.toString(), heldBack);
      }
    } else {
      backoff[shard] = Math.min(MOST_RETRY_NANOS, backoff[shard] * 2);
    }
    retryAt[shard] = now + backoff[shard];
    epochAtFailure[shard] = masterEpoch.getAsLong();
  }

  /** A call to {@code shard} worked. */
  public synchronized void worked(int shard) {
    if (failing[shard]) {
      failing[shard] = false;
      if (failing.length > 1) {
        log.info("{}: shard {} answers again after {} ms", name, shard,
          (System.nanoTime() - failingSince[shard]) / 1_000_000);
      }
    }
  }
}
