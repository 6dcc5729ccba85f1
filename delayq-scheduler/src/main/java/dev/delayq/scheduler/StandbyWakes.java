package dev.delayq.scheduler;

import dev.delayq.redis.SchedulerCalls;
import dev.delayq.process.OutageLog;
import dev.delayq.process.PubSubListener;
import dev.delayq.process.RedisOutage;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * Wakes the scheduler's {@link Waiter} when a job becomes the earliest due one of a shard whose
 * lease another scheduler holds, so that its hot-standby pass runs on the new deadline. It
 * listens on the shards' wake channels (Redis pub/sub, one subscription for all shards) rather
 * than the wake lists, whose token belongs to the lease holder. A message missed while the
 * subscription was down is made good on each subscribe, which wakes the shard of that channel.
 * The same channel says when a holder gave its lease back (a rolling deploy): the standby then
 * takes it at once.
 */
final class StandbyWakes {
  private final RedisBroker broker;
  private final IntFunction<Runnable> wakeOf;
  private final IntPredicate held;
  private final Waiter waiter;
  private final PubSubListener listener;

  /**
   * {@code wakeOf}: what to run for a woken shard; {@code held}: whether this scheduler holds it;
   * {@code leaseReleased}: what to run when a holder gave a lease back (this scheduler then looks
   * at the leases at once, not at its next renewal time); {@code pingEvery}: well inside the
   * connection's read timeout.
   */
  StandbyWakes(RedisBroker broker, IntFunction<Runnable> wakeOf, IntPredicate held, Runnable leaseReleased,
      Waiter waiter, Duration pingEvery) {
    this.broker = broker;
    this.wakeOf = wakeOf;
    this.held = held;
    this.waiter = waiter;
    this.listener = new PubSubListener("standby-wakes", broker.scheduling()::subscribeToWakes, (channel, message) -> {
      if (SchedulerCalls.LEASE_RELEASED.equals(message)) {
        leaseReleased.run();
      }
      wake(channel);
    }, this::wake, pingEvery);
  }

  /** Listens until {@code stopping}; {@code onCannotGoOn} is told should it not go on. */
  void start(BooleanSupplier stopping, OutageLog outages, Consumer<Throwable> onCannotGoOn) {
    listener.start(stopping, new RedisOutage("scheduler/standby-wakes", outages), onCannotGoOn);
  }

  void close() {
    listener.close();
  }

  private void wake(String channel) {
    int shard = broker.scheduling().shardOfWakeChannel(channel);
    if (shard >= 0 && !held.test(shard)) {
      wakeOf.apply(shard).run();
      waiter.wake();
    }
  }
}
