package dev.delayq.worker;

import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.ShardHealth;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Sends the idle consumers of a worker on a queue of several shards to the shard that has jobs.
 * A consumer blocked in Redis waits on one shard only (BLMOVE names one list), so while fewer of
 * a worker's consumers idle than there are shards (few threads, or most of them busy with long
 * jobs), some shard would have nobody waiting on it, and a job forwarded there would wait for a
 * busy consumer's next claim or a poll timeout. Instead, while any consumer of the worker idles,
 * one watcher thread per shard blocks on that shard's ready list without taking from it
 * ({@link RedisBroker#awaitReady}), and the idle consumers wait here, in the JVM: a shard with
 * jobs sends one of them to claim there, and the next one once that claim has looked (a claim
 * takes a fair share, so a burst draws the idle consumers one after the other).
 *
 * <p>No empty-poll storm: the watcher of a shard whose jobs nobody has claimed yet, or that a
 * consumer is on its way to, does not look again until a claim has looked at that shard (or a
 * poll timeout passed, should that consumer never claim); and while no consumer idles the
 * watchers do not look at all. An idle worker costs one blocking call per shard and one claim
 * per consumer per poll timeout.
 *
 * <p>No consumer is sent to a shard that the worker's {@link ShardHealth} holds back (its calls
 * fail): its jobs wait there, seen, until it answers again, and the consumers serve the others.
 */
final class ShardWatch {
  private final RedisBroker broker;
  private final ShardHealth health;
  private final double pollSeconds;
  private final long pollNanos;
  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled for an idle consumer: a shard has jobs. */
  private final Condition work = lock.newCondition();
  /** Signalled for the watchers: a consumer idles, or a shard was looked at. */
  private final Condition look = lock.newCondition();
  // per shard, guarded by lock: jobs were seen and no consumer sent yet; a consumer was sent, when
  private final boolean[] seen;
  private final boolean[] sent;
  private final long[] sentAtNanos;
  /** Consumers waiting in {@link #await}. */
  private int idle;
  /** Where the next look for a seen shard starts, so that no shard waits behind another. */
  private int from;

  ShardWatch(RedisBroker broker, double pollSeconds) {
    this(broker, pollSeconds, ShardHealth.unwatched(broker.shards()));
  }

  /** A watch that sends no consumer to a shard that {@code health} holds back. */
  ShardWatch(RedisBroker broker, double pollSeconds, ShardHealth health) {
    this.broker = broker;
    this.health = health;
    this.pollSeconds = pollSeconds;
    this.pollNanos = (long) (pollSeconds * 1e9);
    int shards = broker.shards();
    this.seen = new boolean[shards];
    this.sent = new boolean[shards];
    this.sentAtNanos = new long[shards];
  }

  /** Starts a watcher per shard, each until {@code stopping} holds; their threads. */
  List<Thread> start(String name, BooleanSupplier stopping, OutageLog outages, Consumer<Throwable> cannotGoOn) {
    List<Thread> threads = new ArrayList<>();
    for (int shard = 0; shard < seen.length; shard++) {
      int s = shard;
      String thread = name + "/shard-watch-" + s;
      threads.add(RunUntilShutdown.of(thread, () -> tick(s)).until(stopping)
          .riding(new RedisOutage(thread, outages)).onCannotGoOn(cannotGoOn, Duration.ofMinutes(1)).build().start());
    }
    return threads;
  }

  /**
   * One watcher's pass over {@code shard}: while a consumer idles and nobody is on the way there,
   * a wait (up to the poll timeout) for the shard to have jobs; else a wait to be told to look.
   */
  long tick(int shard) throws InterruptedException {
    lock.lock();
    try {
      if (sent[shard] && System.nanoTime() - sentAtNanos[shard] >= pollNanos) {
        sent[shard] = false; // the consumer sent there never claimed (it was told to be quiet)
      }
      if (seen[shard] || sent[shard] || idle == 0) {
        look.awaitNanos(pollNanos);
        return System.nanoTime();
      }
    } finally {
      lock.unlock();
    }
    if (broker.awaitReady(shard, pollSeconds)) {
      lock.lock();
      try {
        seen[shard] = true;
        work.signal();
      } finally {
        lock.unlock();
      }
    }
    return System.nanoTime();
  }

  /**
   * An idle consumer's wait, up to {@code timeoutNanos}, for a shard with jobs that no other
   * consumer was sent to: that shard, or -1 when none came in time.
   */
  int await(long timeoutNanos) throws InterruptedException {
    lock.lock();
    try {
      if (idle++ == 0) {
        look.signalAll(); // the watchers look while a consumer idles
      }
      long left = timeoutNanos;
      while (true) {
        for (int i = 0; i < seen.length; i++) {
          int shard = (from + i) % seen.length;
          if (seen[shard] && !health.failing(shard)) {
            seen[shard] = false;
            sent[shard] = true;
            sentAtNanos[shard] = System.nanoTime();
            from = shard + 1;
            return shard;
          }
        }
        if (left <= 0) {
          return -1;
        }
        left = work.awaitNanos(left);
      }
    } finally {
      idle--;
      lock.unlock();
    }
  }

  /** How many consumers wait in {@link #await} now. */
  int idle() {
    lock.lock();
    try {
      return idle;
    } finally {
      lock.unlock();
    }
  }

  /**
   * A claim has looked at {@code shard} (and took its share of what waited there): its watcher
   * may look again, and sees at once what is left.
   */
  void looked(int shard) {
    lock.lock();
    try {
      if (sent[shard] || seen[shard]) {
        sent[shard] = false;
        seen[shard] = false;
        look.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }
}
