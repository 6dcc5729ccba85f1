package dev.delayq.scheduler;

import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Blocks on one shard's wake list and wakes the scheduler's {@link Waiter} when an enqueue made a
 * new earliest job there. Only the holder of the shard's lease listens, so a standby never
 * swallows the holder's token. The blocking timeout only bounds how soon this thread notices
 * shutdown. A scheduler runs one per shard: a blocking pop names one key, one slot.
 */
final class WakeListener {
  private final RedisBroker broker;
  private final int shard;
  private final Runnable woken;
  private final Waiter waiter;
  private final BooleanSupplier listening;
  private final BooleanSupplier stopping;
  private final RedisOutage outage;

  WakeListener(RedisBroker broker, Waiter waiter, BooleanSupplier listening, BooleanSupplier stopping,
      OutageLog outages) {
    this(broker, 0, () -> { }, waiter, listening, stopping, outages);
  }

  /** The listener of {@code shard}; {@code woken} notes which shard woke the scheduler. */
  WakeListener(RedisBroker broker, int shard, Runnable woken, Waiter waiter, BooleanSupplier listening,
      BooleanSupplier stopping, OutageLog outages) {
    this.outage = new RedisOutage(broker.shards() == 1 ? "scheduler/wake-listener"
        : "scheduler/wake-listener-" + shard, outages);
    this.broker = broker;
    this.shard = shard;
    this.woken = woken;
    this.waiter = waiter;
    this.listening = listening;
    this.stopping = stopping;
  }

  /** Listens on its own thread until shutdown; {@code onCannotGoOn} is told should it not go on. */
  Thread start(Consumer<Throwable> onCannotGoOn) {
    return RunUntilShutdown.of(broker.shards() == 1 ? "wake-listener" : "wake-listener-" + shard, this::pass).until(stopping).riding(outage)
        .onCannotGoOn(onCannotGoOn, Duration.ofMinutes(1)).build().start();
  }

  /** One wait for a token (the leader only); returns when to wait again. */
  long pass() {
    if (!listening.getAsBoolean()) {
      return System.nanoTime() + 200_000_000L;
    }
    if (broker.scheduling().awaitWake(shard, 1.0)) {
      woken.run();
      waiter.wake();
    }
    return System.nanoTime();
  }
}
