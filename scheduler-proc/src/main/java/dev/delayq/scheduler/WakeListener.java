package dev.delayq.scheduler;

import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.redis.RedisBroker;
import java.util.function.BooleanSupplier;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Blocks on the wake list and wakes the scheduler's {@link Waiter} when an enqueue made a new
 * earliest job. Only the leader listens, so a standby never swallows the leader's token. The
 * blocking timeout only bounds how soon this thread notices shutdown.
 */
final class WakeListener implements Runnable {
  private final RedisBroker broker;
  private final Waiter waiter;
  private final BooleanSupplier listening;
  private final BooleanSupplier stopping;
  private final RedisOutage outage;

  WakeListener(RedisBroker broker, Waiter waiter, BooleanSupplier listening, BooleanSupplier stopping,
      OutageLog outages) {
    this.outage = new RedisOutage("scheduler/wake-listener", outages);
    this.broker = broker;
    this.waiter = waiter;
    this.listening = listening;
    this.stopping = stopping;
  }

  @Override
  public void run() {
    while (!stopping.getAsBoolean()) {
      try {
        if (!listening.getAsBoolean()) {
          Thread.sleep(200);
          continue;
        }
        if (broker.awaitWake(1.0)) {
          waiter.wake();
        }
        outage.succeeded();
      } catch (JedisException e) {
        sleep(outage.failed(e));
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
