package dev.delayq.scheduler;

import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import redis.clients.jedis.JedisPubSub;

/**
 * Wakes the scheduler's {@link Waiter} when a job becomes the earliest due one of a shard whose
 * lease another scheduler holds, so that its hot-standby pass runs on the new deadline. It
 * listens on the shards' wake channels (Redis pub/sub, one subscription for all shards) rather
 * than the wake lists, whose token belongs to the lease holder. A message missed while the
 * subscription was down is made good on each subscribe, which wakes every shard once.
 */
final class StandbyWakes {
  private final RedisBroker broker;
  private final IntFunction<Runnable> wakeOf;
  private final IntPredicate held;
  private final Waiter waiter;
  private final Subscription subscription = new Subscription();
  private volatile RedisOutage outage;

  /** {@code wakeOf}: what to run for a woken shard; {@code held}: whether this scheduler holds it. */
  StandbyWakes(RedisBroker broker, IntFunction<Runnable> wakeOf, IntPredicate held, Waiter waiter) {
    this.broker = broker;
    this.wakeOf = wakeOf;
    this.held = held;
    this.waiter = waiter;
  }

  /** Listens on its own thread until {@code stopping}; {@code onCannotGoOn} is told should it not go on. */
  Thread start(BooleanSupplier stopping, OutageLog outages, Consumer<Throwable> onCannotGoOn) {
    outage = new RedisOutage("scheduler/standby-wakes", outages);
    return RunUntilShutdown.of("standby-wakes", this::tick).until(stopping).riding(outage)
        .onCannotGoOn(onCannotGoOn, Duration.ofMinutes(1)).build().start();
  }

  /** Blocks in the subscription until it ends (close, or the connection drops); then at once again. */
  long tick() {
    broker.subscribeToWakes(subscription);
    return System.nanoTime();
  }

  void close() {
    if (subscription.isSubscribed()) {
      subscription.unsubscribe();
    }
  }

  private void wake(int shard) {
    if (shard >= 0 && !held.test(shard)) {
      wakeOf.apply(shard).run();
      waiter.wake();
    }
  }

  private final class Subscription extends JedisPubSub {
    @Override
    public void onMessage(String channel, String dueAt) {
      wake(broker.shardOfWakeChannel(channel));
    }

    @Override
    public void onSubscribe(String channel, int count) {
      // the subscription blocks for as long as it lasts: being in it is this role's success
      RedisOutage o = outage;
      if (o != null) {
        o.succeeded();
      }
      // a new earliest job may have come while it was down
      wake(broker.shardOfWakeChannel(channel));
    }
  }
}
