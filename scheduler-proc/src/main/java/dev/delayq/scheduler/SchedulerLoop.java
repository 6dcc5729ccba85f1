package dev.delayq.scheduler;

import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.ShutdownSignal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The scheduler's one thread: while it holds the lease it forwards due jobs (again at once
 * while batches come back full, so there is no per-second ceiling), recovers silent consumers
 * every recover interval, and otherwise sleeps until the next due time, a wake-up or the next
 * lease renewal. Every error is logged and survived; a Redis outage is retried with backoff.
 */
final class SchedulerLoop {
  private static final Logger log = LoggerFactory.getLogger(SchedulerLoop.class);

  private final LeaderLease lease;
  private final Forwarder forwarder;
  private final Recoverer recoverer;
  private final Waiter waiter;
  private final ShutdownSignal shutdown;
  private final long recoverIntervalNanos;
  private final RedisOutage outage;
  private long nextRecoverNanos = System.nanoTime();

  SchedulerLoop(LeaderLease lease, Forwarder forwarder, Recoverer recoverer, Waiter waiter,
      ShutdownSignal shutdown, long recoverIntervalNanos, OutageLog outages) {
    this.outage = new RedisOutage("scheduler", outages);
    this.lease = lease;
    this.forwarder = forwarder;
    this.recoverer = recoverer;
    this.waiter = waiter;
    this.shutdown = shutdown;
    this.recoverIntervalNanos = recoverIntervalNanos;
  }

  void run() {
    while (!shutdown.isRequested()) {
      try {
        long wakeAt = tick();
        outage.succeeded();
        if (wakeAt > System.nanoTime() && !shutdown.isRequested()) {
          waiter.awaitUntil(wakeAt);
        }
      } catch (JedisException e) {
        waiter.awaitUntil(System.nanoTime() + outage.failed(e) * 1_000_000);
      } catch (RuntimeException e) {
        log.error("scheduler: unexpected error, will keep running", e);
        waiter.awaitUntil(System.nanoTime() + 1_000_000_000L);
      }
    }
    try {
      lease.release();
    } catch (JedisException e) {
      log.warn("scheduler: could not release the lease ({}); it expires by itself", e.getMessage());
    }
  }

  /** One pass; returns when to run the next one (System.nanoTime; now or earlier = at once). */
  long tick() {
    if (!lease.tick()) {
      return lease.nextTickNanos();
    }
    Forwarder.Pass pass = forwarder.tick();
    long now = System.nanoTime();
    if (now - nextRecoverNanos >= 0) {
      recoverer.tick(pass.redisNowMs());
      nextRecoverNanos = now + recoverIntervalNanos;
    }
    if (pass.moreDue()) {
      return now;
    }
    return Math.min(pass.nextDueNanos(), Math.min(nextRecoverNanos, lease.nextTickNanos()));
  }
}
