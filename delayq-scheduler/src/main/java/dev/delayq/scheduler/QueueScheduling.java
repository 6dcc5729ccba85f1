package dev.delayq.scheduler;

import dev.delayq.config.DelayqConfig;
import dev.delayq.process.OutageLog;
import dev.delayq.process.ShutdownSignal;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The scheduling of one queue: its lease, forwarder, recoverer, id-retention trimmer, wake
 * listeners (the lease holder's, and the hot standby's subscription) and schedule ticker, wired from that queue's own configuration. A scheduler serving
 * several queues runs one of these per queue, each in its own key slot and with its own lease,
 * exactly as a system of that one queue would.
 */
final class QueueScheduling {
  private final String queue;
  private final int shards;
  private final SchedulerLoop loop;
  private final Waiter waiter;
  private final StandbyWakes standbyWakes;
  /** Its wake listeners' and ticker's threads, which end soon after shutdown. */
  private final List<Thread> helpers;

  private QueueScheduling(String queue, int shards, SchedulerLoop loop, Waiter waiter, StandbyWakes standbyWakes,
      List<Thread> helpers) {
    this.queue = queue;
    this.shards = shards;
    this.loop = loop;
    this.waiter = waiter;
    this.standbyWakes = standbyWakes;
    this.helpers = helpers;
  }

  /** Wires {@code config}'s queue (a config of one queue: {@link DelayqConfig#forQueue}) and starts its listeners. */
  static QueueScheduling start(DelayqConfig config, RedisConnection redis, String owner, ShutdownSignal shutdown,
      OutageLog outages, Consumer<Throwable> cannotGoOn) {
    RedisBroker broker = new RedisBroker(redis, Keys.of(config)).withLimits(config);
    ShardLeases lease = new ShardLeases(broker, owner, config.scheduler().leaseTtl().toMillis(), redis::masterEpoch);
    Waiter waiter = new Waiter();
    Recoverer recoverer = new Recoverer(broker, config.worker().poisonPillAfter(), config.queue().handlerWait());
    SchedulerLoop loop = new SchedulerLoop(lease, new Forwarder(broker, config.scheduler().batchSize()),
        recoverer, new IdRetentionTrimmer(broker), waiter, shutdown,
        config.scheduler().recoverInterval().toNanos(), config.scheduler().standbyGrace().toMillis(), outages);
    List<Thread> helpers = new ArrayList<>();
    for (int shard = 0; shard < broker.shards(); shard++) {
      int s = shard;
      helpers.add(new WakeListener(broker, s, loop.wakeOf(s), waiter, () -> lease.holds(s), shutdown::isRequested,
          outages).start(cannotGoOn));
    }
    StandbyWakes standbyWakes = new StandbyWakes(broker, loop::wakeOf, lease::holds, loop::leaseReleased, waiter,
        config.redis().socketTimeout().dividedBy(2));
    standbyWakes.start(shutdown::isRequested, outages, cannotGoOn);
    helpers.add(new ScheduleTicker(broker).start(shutdown::isRequested, outages, cannotGoOn));
    return new QueueScheduling(config.queue().name(), broker.shards(), loop, waiter, standbyWakes, helpers);
  }

  String queue() {
    return queue;
  }

  int shards() {
    return shards;
  }

  /** Runs the queue's loop on this thread until shutdown, then ends the standby's subscription. */
  void run(Consumer<Throwable> cannotGoOn) {
    loop.run(cannotGoOn);
    standbyWakes.close();
  }

  /**
   * Waits until its wake listeners and ticker have seen the shutdown (a wake listener's blocking
   * pop returns within a second), or {@code deadlineNanos}: only then may their connection close.
   */
  void awaitHelpers(long deadlineNanos) throws InterruptedException {
    for (Thread t : helpers) {
      long leftMs = (deadlineNanos - System.nanoTime()) / 1_000_000;
      if (leftMs <= 0) {
        return;
      }
      t.join(leftMs);
    }
  }

  /** Wakes the loop early (a shutdown, a thread that cannot go on). */
  void wake() {
    waiter.wake();
  }
}
