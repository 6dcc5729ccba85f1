package dev.delayq.scheduler;

import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.process.ShutdownSignal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The scheduler's one thread: for every shard whose lease it holds it forwards due jobs (again
 * at once while batches come back full, so there is no per-second ceiling), recovers silent
 * consumers every recover interval, and otherwise sleeps until the earliest next due time of its
 * shards, a wake-up or the next lease renewal. Each shard keeps its own deadline: a pass forwards
 * only the shards that are due or were woken, all of them in one round trip, so one shard's jobs
 * never wait on another's. It runs under {@link RunUntilShutdown}: every error is logged once and
 * survived, a Redis outage is retried with backoff, and should the loop not go on the scheduler
 * exits non-zero so that it is restarted.
 */
final class SchedulerLoop {
  private static final Logger log = LoggerFactory.getLogger(SchedulerLoop.class);

  private final ShardLeases lease;
  private final Forwarder forwarder;
  private final Recoverer recoverer;
  private final IdRetentionTrimmer trimmer;
  private final Waiter waiter;
  private final ShutdownSignal shutdown;
  private final long recoverIntervalNanos;
  private final RedisOutage outage;
  private long nextRecoverNanos = System.nanoTime();
  /** Per shard: when it is due next (System.nanoTime); a shard just taken is due at once. */
  private final long[] nextDueNanos;
  private final boolean[] wasHeld;
  /** Per shard: its wake listener saw a new earliest job. */
  private final AtomicBoolean[] woken;

  private boolean moreToForget;

  SchedulerLoop(ShardLeases lease, Forwarder forwarder, Recoverer recoverer, IdRetentionTrimmer trimmer,
      Waiter waiter,
      ShutdownSignal shutdown, long recoverIntervalNanos, OutageLog outages) {
    this.outage = new RedisOutage("scheduler", outages);
    this.lease = lease;
    this.forwarder = forwarder;
    this.recoverer = recoverer;
    this.trimmer = trimmer;
    this.waiter = waiter;
    this.shutdown = shutdown;
    this.recoverIntervalNanos = recoverIntervalNanos;
    int shards = forwarder.shards();
    this.nextDueNanos = new long[shards];
    this.wasHeld = new boolean[shards];
    this.woken = new AtomicBoolean[shards];
    for (int i = 0; i < shards; i++) {
      woken[i] = new AtomicBoolean();
    }
  }

  /** What the wake listener of {@code shard} calls before it wakes the waiter. */
  Runnable wakeOf(int shard) {
    return () -> woken[shard].set(true);
  }

  /** Runs until shutdown; {@code onCannotGoOn} is told when the loop cannot go on. */
  void run(Consumer<Throwable> onCannotGoOn) {
    RunUntilShutdown.of("scheduler", this::tick).until(shutdown::isRequested).riding(outage)
        .pausingWith(waiter::awaitUntil).onCannotGoOn(onCannotGoOn, Duration.ofMinutes(1)).build().run();
    try {
      lease.release();
    } catch (JedisException e) {
      log.warn("scheduler: could not release the lease ({}); it expires by itself", e.getMessage());
    }
  }

  /** One pass; returns when to run the next one (System.nanoTime; now or earlier = at once). */
  long tick() {
    if (!lease.tick()) {
      java.util.Arrays.fill(wasHeld, false);
      return lease.nextTickNanos();
    }
    long now = System.nanoTime();
    boolean recover = now - nextRecoverNanos >= 0;
    long next = Math.min(lease.nextTickNanos(), recover ? now + recoverIntervalNanos : nextRecoverNanos);
    List<Integer> due = new ArrayList<>();
    for (int shard : lease.heldShards()) {
      boolean woke = woken[shard].getAndSet(false);
      if (!wasHeld[shard] || woke || recover || nextDueNanos[shard] - now <= 0) {
        wasHeld[shard] = true;
        due.add(shard);
      } else {
        next = Math.min(next, nextDueNanos[shard]);
      }
    }
    if (!due.isEmpty()) {
      // the shards due together are forwarded in one round trip: none waits on another's call
      List<Forwarder.Pass> passes = forwarder.tick(due);
      for (int i = 0; i < due.size(); i++) {
        int shard = due.get(i);
        Forwarder.Pass pass = passes.get(i);
        nextDueNanos[shard] = pass.moreDue() ? System.nanoTime() : pass.nextDueNanos();
        if (recover) {
          recoverer.tick(shard, pass.redisNowMs());
        }
        next = Math.min(next, nextDueNanos[shard]);
      }
    }
    for (int shard = 0; shard < wasHeld.length; shard++) {
      wasHeld[shard] &= lease.holds(shard);
    }
    if (recover) {
      nextRecoverNanos = now + recoverIntervalNanos;
      moreToForget = true;
    }
    if (moreToForget) {
      // one bounded chunk per pass, between forwards, so a mass expiry never delays due jobs
      moreToForget = trimmer.tick();
    }
    return moreToForget ? System.nanoTime() : next;
  }
}
