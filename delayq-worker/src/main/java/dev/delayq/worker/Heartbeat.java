package dev.delayq.worker;

import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Says every few seconds that this worker's consumers are alive, on its own thread under
 * {@link RunUntilShutdown}, and sends the job statistics every second on another. Apart, because
 * the statistics go to one key, in one shard's slot: a flush to a hung master waits for the socket
 * timeout, and on the heartbeat's thread that wait once let the consumers of every other shard
 * expire while their jobs ran (ShardMasterHungProcessTest). Each confirmed heartbeat renews
 * the consumers' {@link Lease} on their jobs. A consumer whose heartbeat expires is taken for gone
 * and its jobs are recovered by the scheduler; so should this thread not go on, the worker is told
 * (it exits, and its jobs are recovered at once).
 */
final class Heartbeat implements AutoCloseable {
  private static final long FLUSH_EVERY_NANOS = 1_000_000_000L;

  private final RedisBroker broker;
  private final List<String> consumers;
  private final long ttlMs;
  private final long intervalNanos;
  private final RedisOutage outage;
  private final RedisOutage flushOutage;
  private final StatsRecorder stats;
  private final Lease lease;
  private volatile boolean closed;
  private long nextBeatNanos;
  private long nextFlushNanos;
  private Thread thread;
  private Thread flushThread;

  /** {@code outage} is the beats' view of Redis, {@code flushOutage} the statistics flush's. */
  Heartbeat(RedisBroker broker, List<String> consumers, long ttlMs, long intervalMs, RedisOutage outage,
      RedisOutage flushOutage, StatsRecorder stats, Lease lease) {
    this.lease = lease;
    this.broker = broker;
    this.consumers = List.copyOf(consumers);
    this.ttlMs = ttlMs;
    this.intervalNanos = intervalMs * 1_000_000;
    this.outage = outage;
    this.flushOutage = flushOutage;
    this.stats = stats;
  }

  /**
   * Beats once now (so the consumers are registered before they claim), then on its own thread
   * every interval, flushing the statistics every second.
   */
  void start(Consumer<Throwable> onCannotGoOn, Duration giveUpAfter) {
    long now = System.nanoTime();
    nextBeatNanos = now + intervalNanos;
    try {
      beat(now);
      outage.succeeded();
    } catch (JedisException e) {
      outage.failed(e);
      nextBeatNanos = now; // the thread tries again at once; a claim registers its consumer too
    }
    nextFlushNanos = now + FLUSH_EVERY_NANOS;
    thread = RunUntilShutdown.of("heartbeat", this::beatPass).until(() -> closed).riding(outage)
        .onCannotGoOn(onCannotGoOn, giveUpAfter).build().start();
    flushThread = RunUntilShutdown.of("stats-flush", this::flushPass).until(() -> closed).riding(flushOutage)
        .onCannotGoOn(onCannotGoOn, giveUpAfter).build().start();
  }

  /** Beats when due; returns when the next beat is. */
  long beatPass() {
    long now = System.nanoTime();
    if (now - nextBeatNanos >= 0) {
      beat(now);
      nextBeatNanos = now + intervalNanos;
    }
    return nextBeatNanos;
  }

  /** Sends the statistics when due; returns when they are next. */
  long flushPass() {
    long now = System.nanoTime();
    if (now - nextFlushNanos >= 0) {
      broker.flushStats(stats, System.currentTimeMillis() / 1000);
      nextFlushNanos = now + FLUSH_EVERY_NANOS;
    }
    return nextFlushNanos;
  }

  /** One heartbeat; once Redis confirmed it, the consumers own their jobs for another TTL. */
  private void beat(long sentAtNanos) {
    broker.consumerRegistry().heartbeat(consumers, ttlMs);
    lease.renewed(sentAtNanos);
  }

  /** Stops beating and sends the last statistics (best effort: the worker is exiting). */
  @Override
  public void close() {
    closed = true;
    for (Thread t : new Thread[] {thread, flushThread}) {
      if (t != null) {
        t.interrupt();
        try {
          t.join(2_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    try {
      broker.flushStats(stats, System.currentTimeMillis() / 1000);
    } catch (RuntimeException e) {
      outage.failed(e);
    }
  }
}
