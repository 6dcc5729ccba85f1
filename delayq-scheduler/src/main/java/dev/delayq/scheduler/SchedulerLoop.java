package dev.delayq.scheduler;

import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.process.ShardHealth;
import dev.delayq.process.ShutdownSignal;
import dev.delayq.redis.NodeInFlightException;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.ShardReply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The scheduler's one thread: for every shard whose lease it holds it forwards due jobs (again
 * at once while batches come back full, so there is no per-second ceiling), recovers silent
 * consumers every recover interval, and otherwise sleeps until the earliest next due time of its
 * shards, a wake-up or the next lease renewal. Each shard keeps its own deadline: a pass forwards
 * only the shards that are due or were woken, all of them in one round trip, so one shard's jobs
 * never wait on another's. For every shard whose lease another scheduler holds it is a hot
 * standby: it forwards only what is overdue by the standby grace, so that when the holder dies
 * due jobs are late by about the grace instead of the lease TTL (while the holder is on time such
 * a pass moves nothing). Recovery and id retention trimming stay with the lease holder. It runs
 * under {@link RunUntilShutdown}: every error is logged once and survived, a Redis outage is
 * retried with backoff, and should the loop not go on the scheduler exits non-zero so that it is
 * restarted.
 *
 * <p>With several shards a call that fails on one shard (its master lost, no replica in its place
 * yet) holds back that shard alone ({@link ShardHealth}: tried again after 50 ms doubling to 1 s,
 * at once after a change of master): its forward fails inside the round trip while the other
 * shards' forwards are answered and used, its recovery and trim wait, and the others keep their
 * own deadlines. On a Redis Cluster each node's calls go on a thread of their own: a node that
 * hangs (SIGSTOP, a partition that drops packets) and has not answered within 200 ms leaves its
 * shards' calls in flight, neither failed nor sent again until it answers, while the other
 * shards' passes go on ({@code NodeLanes}); so do the recoveries, each master's run on its
 * thread. A recovery that fails otherwise (replicas that do not confirm its writes) holds back
 * that shard's recovery only. With one shard a failure is the outage it always was.
 */
final class SchedulerLoop {
  private static final Logger log = LoggerFactory.getLogger(SchedulerLoop.class);
  private static final long LOG_COVER_EVERY_NANOS = 60_000_000_000L;
  /** How often a shard whose node hangs with its call is looked at again (a look sends nothing while it does). */
  private static final long IN_FLIGHT_LOOK_NANOS = 5_000_000L;

  private final ShardLeases lease;
  private final Forwarder forwarder;
  private final Recoverer recoverer;
  private final IdRetentionTrimmer trimmer;
  private final Waiter waiter;
  private final ShutdownSignal shutdown;
  private final long recoverIntervalNanos;
  private final long standbyGraceMs;
  private final RedisOutage outage;
  private final ShardHealth health;
  /** Per shard: its recovery fails while its forwards work (replicas that do not confirm). */
  private final ShardHealth recoveries;
  private long nextRecoverNanos = System.nanoTime();
  /** Per shard: when it is due next (System.nanoTime); a shard just taken is due at once. */
  private final long[] nextDueNanos;
  private final boolean[] wasHeld;
  /** Per shard: its wake listener (or, as a standby, the wake channel) saw a new earliest job. */
  private final AtomicBoolean[] woken;
  /** Per shard: jobs its standby passes moved since that was last logged, and when that was. */
  private final long[] coveredSinceLog;
  private final long[] coverLoggedNanos;

  private boolean moreToForget;
  /** A holder gave a lease back: the next pass looks at the leases at once. */
  private final AtomicBoolean leaseReleased = new AtomicBoolean();

  SchedulerLoop(ShardLeases lease, Forwarder forwarder, Recoverer recoverer, IdRetentionTrimmer trimmer,
      Waiter waiter, ShutdownSignal shutdown, long recoverIntervalNanos, long standbyGraceMs, OutageLog outages) {
    this.outage = new RedisOutage("scheduler", outages);
    this.lease = lease;
    this.health = lease.health();
    this.forwarder = forwarder;
    this.recoverer = recoverer;
    this.trimmer = trimmer;
    this.waiter = waiter;
    this.shutdown = shutdown;
    this.recoverIntervalNanos = recoverIntervalNanos;
    this.standbyGraceMs = standbyGraceMs;
    int shards = forwarder.shards();
    this.recoveries = new ShardHealth("scheduler recovery", shards, () -> 0,
        "its forwards go on; its recovery is tried again at a later recover interval");
    this.nextDueNanos = new long[shards];
    this.wasHeld = new boolean[shards];
    this.woken = new AtomicBoolean[shards];
    this.coveredSinceLog = new long[shards];
    this.coverLoggedNanos = new long[shards];
    Arrays.fill(nextDueNanos, System.nanoTime());
    for (int i = 0; i < shards; i++) {
      woken[i] = new AtomicBoolean();
    }
  }

  /** What the wake listener of {@code shard} (or the standby's wake channel) calls before it wakes the waiter. */
  Runnable wakeOf(int shard) {
    return () -> woken[shard].set(true);
  }

  /** What the standby's wake channel calls when a holder gave a lease back, before it wakes the waiter. */
  void leaseReleased() {
    leaseReleased.set(true);
  }

  /** Runs until shutdown; {@code onCannotGoOn} is told when the loop cannot go on. */
  void run(Consumer<Throwable> onCannotGoOn) {
    RunUntilShutdown.of("scheduler", this::pass).until(shutdown::isRequested).riding(outage)
        .pausingWith(waiter::awaitUntil).onCannotGoOn(onCannotGoOn, Duration.ofMinutes(1)).build().run();
    try {
      lease.release();
    } catch (JedisException e) {
      log.warn("scheduler: could not release the lease ({}); it expires by itself", e.getMessage());
    }
  }

  /** One pass; returns when to run the next one (System.nanoTime; now or earlier = at once). */
  long pass() {
    long now = System.nanoTime();
    // the lease is looked at when its renewal is due (a standby's passes in between cost no lease call)
    // (and at once when a holder gave a lease back: a standby takes it without waiting out the TTL)
    boolean look = leaseReleased.getAndSet(false) || now - lease.nextTickNanos() >= 0;
    boolean leads = look ? lease.tick() : lease.isHeld();
    now = System.nanoTime();
    boolean recover = leads && now - nextRecoverNanos >= 0;
    long next = lease.nextTickNanos();
    if (leads) {
      next = Math.min(next, recover ? now + recoverIntervalNanos : nextRecoverNanos);
    }
    List<Integer> heldDue = new ArrayList<>();
    List<Integer> standbyDue = new ArrayList<>();
    for (int shard = 0; shard < nextDueNanos.length; shard++) {
      boolean held = lease.holds(shard);
      if (health.failing(shard)) {
        // held back: only its retry goes (its wake-up, if any, waits for it to answer)
        if (health.mayCall(shard)) {
          wasHeld[shard] = held;
          (held ? heldDue : standbyDue).add(shard);
        } else {
          next = Math.min(next, health.retryAt(shard));
        }
        continue;
      }
      boolean woke = woken[shard].getAndSet(false);
      if (held != wasHeld[shard] || woke || (held && recover) || nextDueNanos[shard] - now <= 0) {
        wasHeld[shard] = held;
        (held ? heldDue : standbyDue).add(shard);
      } else {
        next = Math.min(next, nextDueNanos[shard]);
      }
    }
    // the shards due together are forwarded in one round trip: none waits on another's call
    if (!heldDue.isEmpty()) {
      List<Forwarder.Pass> passes = forwarder.tick(heldDue, 0);
      List<Integer> toRecover = new ArrayList<>();
      long[] redisNowMs = new long[nextDueNanos.length];
      for (int i = 0; i < heldDue.size(); i++) {
        int shard = heldDue.get(i);
        Forwarder.Pass pass = passes.get(i);
        if (!answered(shard, pass)) {
          next = Math.min(next, nextDueNanos[shard]);
          continue;
        }
        nextDueNanos[shard] = pass.moreDue() ? System.nanoTime() : pass.nextDueNanos();
        if (recover && recoveries.mayCall(shard)) {
          toRecover.add(shard);
          redisNowMs[shard] = pass.redisNowMs();
        }
      }
      recover(toRecover, redisNowMs);
      for (int shard : heldDue) {
        next = Math.min(next, nextDueNanos[shard]);
      }
    }
    if (!standbyDue.isEmpty()) {
      List<Forwarder.Pass> passes = standbyPasses(standbyDue);
      for (int i = 0; i < standbyDue.size(); i++) {
        int shard = standbyDue.get(i);
        Forwarder.Pass pass = passes.get(i);
        if (!answered(shard, pass)) {
          next = Math.min(next, nextDueNanos[shard]);
          continue;
        }
        // a standby also looks at each lease renewal, should it have missed a wake message
        nextDueNanos[shard] = pass.moreDue() ? System.nanoTime() : Math.min(pass.nextDueNanos(), lease.nextTickNanos());
        next = Math.min(next, nextDueNanos[shard]);
      }
    }
    if (recover) {
      nextRecoverNanos = now + recoverIntervalNanos;
      moreToForget = true;
    }
    if (moreToForget && leads) {
      // one bounded chunk per pass, between forwards, so a mass expiry never delays due jobs
      moreToForget = trimmer.tick(health);
    }
    return moreToForget && leads ? System.nanoTime() : next;
  }

  /**
   * Whether {@code shard}'s pass worked. A failed one holds that shard back until its retry (with
   * one shard it is thrown instead: the loop's outage path, as before shards).
   */
  private boolean answered(int shard, Forwarder.Pass pass) {
    if (pass.failure() == null) {
      health.worked(shard);
      return true;
    }
    if (pass.failure() instanceof NodeInFlightException) {
      // its node hangs with a call of this shard unanswered: nothing is sent there until it
      // answers, which a look every few ms finds out (a look costs no Redis call while it hangs)
      nextDueNanos[shard] = System.nanoTime() + IN_FLIGHT_LOOK_NANOS;
      return false;
    }
    health.failedOrThrow(shard, pass.failure());
    nextDueNanos[shard] = health.retryAt(shard);
    return false;
  }

  /**
   * Recovers {@code shards}, each with the Redis time its forward just read. A lost node holds that
   * shard back alone, as a failed forward does; any other failure (with {@code redis.replicaAcks},
   * a master whose replicas do not confirm: its forwards, not waited for, still work) holds back
   * only that shard's recovery, tried again at a later recover interval. With one shard a failure
   * is thrown. On a Redis Cluster each master's recoveries run on that master's own thread
   * ({@link dev.delayq.redis.RedisBroker#eachShardApart}): a master that hangs right after its
   * forward answered leaves its recovery running there (tried again at a later interval, once it
   * answers), instead of holding this thread, and every shard's forwards, until
   * {@code redis.socketTimeout}.
   */
  private void recover(List<Integer> shards, long[] redisNowMs) {
    if (shards.isEmpty()) {
      return;
    }
    if (forwarder.shards() == 1) {
      recoverHere(0, redisNowMs[0]);
      return;
    }
    for (ShardReply<Integer> r : recoverer.ticks(shards, redisNowMs)) {
      if (r.failure() == null) {
        recoveries.worked(r.shard());
      } else if (!(r.failure() instanceof NodeInFlightException)) {
        recoveryFailed(r.shard(), r.failure());
      }
    }
  }

  /** Recovers the one shard of a one-shard queue on this thread, as before shards. */
  private void recoverHere(int shard, long redisNowMs) {
    try {
      recoverer.tick(shard, redisNowMs);
      recoveries.worked(shard);
    } catch (JedisException e) {
      recoveryFailed(shard, e);
    }
  }

  private void recoveryFailed(int shard, JedisException e) {
    if (e instanceof JedisConnectionException) {
      health.failedOrThrow(shard, e);
      nextDueNanos[shard] = health.retryAt(shard);
    } else {
      recoveries.failedOrThrow(shard, e);
    }
  }

  /**
   * A hot-standby pass over shards another scheduler holds: it moves only what that one left
   * overdue. That it had to is logged at most once a minute per shard (a holder on a loaded host
   * may be late often), with the count since.
   */
  private List<Forwarder.Pass> standbyPasses(List<Integer> shards) {
    List<Forwarder.Pass> passes = forwarder.tick(shards, standbyGraceMs);
    long now = System.nanoTime();
    for (int i = 0; i < shards.size(); i++) {
      int shard = shards.get(i);
      coveredSinceLog[shard] += passes.get(i).moved(); // (0 for a failed pass)
      boolean quietLongEnough = coverLoggedNanos[shard] == 0 || now - coverLoggedNanos[shard] >= LOG_COVER_EVERY_NANOS;
      if (coveredSinceLog[shard] > 0 && quietLongEnough) {
        log.info("scheduler: forwarded {} job(s) of {} overdue by more than {} ms: its lease holder is late or gone",
            coveredSinceLog[shard], forwarder.shards() == 1 ? "the queue" : "shard " + shard, standbyGraceMs);
        coveredSinceLog[shard] = 0;
        coverLoggedNanos[shard] = now;
      }
    }
    return passes;
  }
}
