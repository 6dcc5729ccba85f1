package dev.delayq.worker;

import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.redis.RedisBroker;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Says every few seconds that this worker's consumers are alive, and sends the job statistics
 * every second. A consumer whose heartbeat
 * expires is taken for gone and its jobs are recovered by the scheduler.
 */
final class Heartbeat implements AutoCloseable {
  private final RedisBroker broker;
  private final List<String> consumers;
  private final long ttlMs;
  private final RedisOutage outage;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "heartbeat");
    t.setDaemon(true);
    return t;
  });

  private final StatsRecorder stats;

  Heartbeat(RedisBroker broker, List<String> consumers, long ttlMs, String subject, StatsRecorder stats,
      OutageLog outages) {
    this.stats = stats;
    this.broker = broker;
    this.consumers = List.copyOf(consumers);
    this.ttlMs = ttlMs;
    this.outage = new RedisOutage(subject + "/heartbeat", outages);
  }

  /**
   * Beats once now (so the consumers are registered before they claim), then every interval;
   * flushes the job statistics every second on the same thread.
   */
  void start(long intervalMs) {
    tick();
    timer.scheduleAtFixedRate(this::tick, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    timer.scheduleAtFixedRate(this::flushStats, 1000, 1000, TimeUnit.MILLISECONDS);
  }

  void flushStats() {
    try {
      stats.flush(broker.redis(), System.currentTimeMillis() / 1000);
    } catch (JedisException e) {
      outage.failed(e);
    }
  }

  void tick() {
    try {
      broker.heartbeat(consumers, ttlMs);
      outage.succeeded();
    } catch (JedisException e) {
      outage.failed(e);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    flushStats();
  }
}
