package dev.delayq.scheduler;

import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Blocks on the wake list and wakes the scheduler's {@link Waiter} when an enqueue made a new
 * earliest job. Only the leader listens, so a standby never swallows the leader's token. The
 * blocking timeout only bounds how soon this thread notices shutdown.
 */
final class WakeListener {
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

  /** Listens on its own thread until shutdown; {@code onCannotGoOn} is told should it not go on. */
  Thread start(Consumer<Throwable> onCannotGoOn) {
    return RunUntilShutdown.of("wake-listener", this::tick).until(stopping).riding(outage)
        .onCannotGoOn(onCannotGoOn, Duration.ofMinutes(1)).build().start();
  }

  /** One wait for a token (the leader only); returns when to wait again. */
  long tick() {
    if (!listening.getAsBoolean()) {
      return System.nanoTime() + 200_000_000L;
    }
    if (broker.awaitWake(1.0)) {
      waiter.wake();
    }
    return System.nanoTime();
  }
}
