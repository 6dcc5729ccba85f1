package dev.delayq.scheduler;

import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.process.ShutdownSignal;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The scheduler's one thread: while it holds the lease it forwards due jobs (again at once
 * while batches come back full, so there is no per-second ceiling), recovers silent consumers
 * every recover interval, and otherwise sleeps until the next due time, a wake-up or the next
 * lease renewal. It runs under {@link RunUntilShutdown}: every error is logged once and
 * survived, a Redis outage is retried with backoff, and should the loop not go on the scheduler
 * exits non-zero so that it is restarted.
 */
final class SchedulerLoop {
  private static final Logger log = LoggerFactory.getLogger(SchedulerLoop.class);

  private final LeaderLease lease;
  private final Forwarder forwarder;
  private final Recoverer recoverer;
  private final IdRetentionTrimmer trimmer;
  private final Waiter waiter;
  private final ShutdownSignal shutdown;
  private final long recoverIntervalNanos;
  private final RedisOutage outage;
  private long nextRecoverNanos = System.nanoTime();
  private boolean moreToForget;

  SchedulerLoop(LeaderLease lease, Forwarder forwarder, Recoverer recoverer, IdRetentionTrimmer trimmer, Waiter waiter,
      ShutdownSignal shutdown, long recoverIntervalNanos, OutageLog outages) {
    this.outage = new RedisOutage("scheduler", outages);
    this.lease = lease;
    this.forwarder = forwarder;
    this.recoverer = recoverer;
    this.trimmer = trimmer;
    this.waiter = waiter;
    this.shutdown = shutdown;
    this.recoverIntervalNanos = recoverIntervalNanos;
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
      return lease.nextTickNanos();
    }
    Forwarder.Pass pass = forwarder.tick();
    long now = System.nanoTime();
    if (now - nextRecoverNanos >= 0) {
      recoverer.tick(pass.redisNowMs());
      nextRecoverNanos = now + recoverIntervalNanos;
      moreToForget = true;
    }
    if (moreToForget) {
      // one bounded chunk per pass, between forwards, so a mass expiry never delays due jobs
      moreToForget = trimmer.tick();
    }
    if (pass.moreDue() || moreToForget) {
      return now;
    }
    return Math.min(pass.nextDueNanos(), Math.min(nextRecoverNanos, lease.nextTickNanos()));
  }
}
