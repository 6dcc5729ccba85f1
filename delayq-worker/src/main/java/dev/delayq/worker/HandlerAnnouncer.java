package dev.delayq.worker;

import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.redis.HandlerWait;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says in Redis which job types this worker runs, at its start and then every heartbeat interval,
 * for a heartbeat TTL, and brings the jobs of those types that other workers left for want of a
 * handler back to ready ({@link HandlerWait#announce}).
 *
 * <p>It brings back only what this worker has room for now (its idle consumers times their
 * prefetch): the jobs go to the shared ready list, where a worker without the handler may claim
 * some of them again and leave them again, so bringing back more than this worker can start
 * would only make them go round. While jobs of its types still wait it looks again every
 * {@value #AGAIN_SOON_MS} ms, not at the next heartbeat (and so after it brought some back, which may
 * be left again); with no room it only announces. Its own
 * thread: a slow call here holds up neither the heartbeat nor a claim.
 */
final class HandlerAnnouncer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HandlerAnnouncer.class);
  static final long AGAIN_SOON_MS = 50;
  /** At most this many waiting jobs back to ready per shard and call: a bounded script. */
  static final int MOST_PER_CALL = 1000;

  private final String name;
  private final HandlerWait handlerWait;
  private final List<String> types;
  private final Duration ttl;
  private final long intervalNanos;
  private final IntSupplier room;
  private volatile boolean closed;
  private long nextAnnouncementNanos;
  private boolean lookAgainSoon;
  private Thread thread;

  /** {@code room}: how many jobs this worker could start now (idle consumers times prefetch). */
  HandlerAnnouncer(String name, HandlerWait handlerWait, List<String> types, Duration ttl, Duration interval,
      IntSupplier room) {
    this.name = name;
    this.handlerWait = handlerWait;
    this.types = List.copyOf(types);
    this.ttl = ttl;
    this.intervalNanos = interval.toNanos();
    this.room = room;
    this.nextAnnouncementNanos = System.nanoTime();
  }

  /** Announces once now, then on its own thread until closed or {@code stopping}. */
  void start(RedisOutage outage, BooleanSupplier stopping) {
    if (types.isEmpty()) {
      return; // nothing to announce: a worker with no handlers runs no job
    }
    try {
      pass();
    } catch (RuntimeException e) {
      outage.failed(e); // the thread tries again at once
    }
    thread = RunUntilShutdown.of(name + "/handlers", this::pass).until(() -> closed || stopping.getAsBoolean())
        .riding(outage).build().start();
  }

  /** Announces when due, or brings back jobs when some wait and it has room; returns when to look next. */
  long pass() {
    long now = System.nanoTime();
    int most = Math.min(MOST_PER_CALL, Math.max(0, room.getAsInt()));
    boolean due = now - nextAnnouncementNanos >= 0;
    if (due || (lookAgainSoon && most > 0)) {
      HandlerWait.Announced a = handlerWait.announce(types, ttl, most);
      // those brought back may be left again by a worker without the handler: look again soon
      lookAgainSoon = a.stillWaiting() > 0 || a.broughtBack() > 0;
      if (due) {
        nextAnnouncementNanos = now + intervalNanos;
      }
      if (a.broughtBack() > 0) {
        log.debug("{}: brought {} job(s) that waited for a handler back to ready ({} still waiting)",
            name, a.broughtBack(), a.stillWaiting());
      }
    }
    return lookAgainSoon ? Math.min(nextAnnouncementNanos, now + AGAIN_SOON_MS * 1_000_000) : nextAnnouncementNanos;
  }

  @Override
  public void close() {
    closed = true;
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(2_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
