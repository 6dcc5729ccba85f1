package dev.delayq.worker;

import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.process.ShardHealth;
import dev.delayq.redis.Batch;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Sends the idle consumers of a worker on a queue of several shards to the shards that have jobs.
 * A consumer blocked in Redis waits on one shard only (BLMOVE names one list), so while fewer of
 * a worker's consumers idle than there are shards (few threads, or most of them busy with long
 * jobs), some shard would have nobody waiting on it, and a job forwarded there would wait for a
 * busy consumer's next claim or a poll timeout. Instead, while any consumer of the worker idles,
 * one watcher thread per shard blocks on that shard's ready list without taking from it
 * ({@link RedisBroker#awaitReady}), and the idle consumers wait here, in the JVM: a shard with
 * jobs sends one of them to claim there.
 *
 * <p>A claim answers how many jobs it left in its shard ({@link Batch#left()}), and
 * that many more idle consumers are sent there at once (less those already on their way), so a
 * burst is claimed by several consumers side by side, as on one shard where every idle consumer
 * blocks on the one list; not one after the other, each after the claim before it and a new
 * look of the watcher (a chain of round trips per job of the burst).
 *
 * <p>No empty-poll storm: the watcher of a shard whose jobs are known, or that a consumer is on
 * its way to, does not look again until a claim there says nothing is left (or a poll timeout
 * passed, should that consumer never claim); and while no consumer idles the watchers do not look
 * at all. At most one consumer is sent per job a claim saw left. An idle worker costs one
 * blocking call per shard and one claim per consumer per poll timeout.
 *
 * <p>Idle consumers also block in Redis themselves, one per shard ({@link Turn#block()}): a
 * shard with such a waiter needs no watcher, and its job reaches a consumer as on one shard, in
 * the consumer's own BLMOVE and claim, with no watcher's look, hand-over between threads and
 * second claim in between (at a steady rate, what every job paid). A consumer takes such a wait
 * only while it leaves another consumer idle here for the shards nobody blocks on, so a shard
 * never waits for a consumer blocked on another; when it comes back, another idle consumer takes
 * its place.
 *
 * <p>No consumer is sent to a shard that the worker's {@link ShardHealth} holds back (its calls
 * fail): its jobs wait there, seen, until it answers again, and the consumers serve the others.
 * A watcher whose own look fails holds its shard back too, and looks again on that shard's retry
 * time.
 *
 * <p>Its idle consumers also run the hand-off of the jobs a busy consumer claimed behind a handler
 * that turns out slow ({@link #handOff}, as the {@link IdleGate}'s parked consumers do on one
 * shard); the jobs handed back are then sent for as a claim's left ones.
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
  // per shard, guarded by lock: jobs known to wait there that no consumer was sent for yet; the
  // consumers sent there whose claim has not answered; when the last one was sent
  private final long[] unserved;
  private final int[] onTheirWay;
  private final long[] sentAtNanos;
  /** A consumer blocks on the shard's ready list itself (see {@link Turn#block()}). */
  private final boolean[] blockedOn;
  /** Consumers waiting in {@link #await}. */
  private int idle;
  /** Where the next look for a shard with jobs starts, so that no shard waits behind another. */
  private int from;
  /** Hand-offs asked for, guarded by lock: each is run by an idle consumer, on its thread. */
  private final ArrayDeque<Runnable> handOffs = new ArrayDeque<>();

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
    this.unserved = new long[shards];
    this.onTheirWay = new int[shards];
    this.sentAtNanos = new long[shards];
    this.blockedOn = new boolean[shards];
  }

  /**
   * What an idle consumer does next: claim in {@code shard}, where jobs were seen; with
   * {@code block}, block on {@code shard}'s ready list itself (then {@link #unblocked}); with a
   * {@code handOff}, run it (another consumer's, see {@link #handOff}) and wait again; shard -1
   * and none: nothing came within its wait.
   */
  record Turn(int shard, boolean block, Runnable handOff) {
    static final Turn NONE = new Turn(-1, false, null);

    Turn(int shard, boolean block) {
      this(shard, block, null);
    }
  }

  /** Starts a watcher per shard, each until {@code stopping} holds; their threads. */
  List<Thread> start(String name, BooleanSupplier stopping, OutageLog outages, Consumer<Throwable> cannotGoOn) {
    List<Thread> threads = new ArrayList<>();
    for (int shard = 0; shard < unserved.length; shard++) {
      int s = shard;
      String thread = name + "/shard-watch-" + s;
      threads.add(RunUntilShutdown.of(thread, () -> pass(s)).until(stopping)
          .riding(new RedisOutage(thread, outages)).onCannotGoOn(cannotGoOn, Duration.ofMinutes(1)).build().start());
    }
    return threads;
  }

  /**
   * One watcher's pass over {@code shard}: while a consumer idles and nobody is on the way there,
   * a wait (up to the poll timeout) for the shard to have jobs; else a wait to be told to look.
   */
  long pass(int shard) throws InterruptedException {
    lock.lock();
    try {
      if (onTheirWay[shard] > 0 && System.nanoTime() - sentAtNanos[shard] >= pollNanos) {
        onTheirWay[shard] = 0; // the consumers sent there never claimed (they were told to be quiet)
      }
      if (blockedOn[shard] || unserved[shard] > 0 || onTheirWay[shard] > 0 || idle == 0) {
        look.awaitNanos(pollNanos);
        return System.nanoTime();
      }
    } finally {
      lock.unlock();
    }
    boolean found;
    try {
      found = broker.claims().awaitReady(shard, pollSeconds);
    } catch (JedisException e) {
      // that shard's node is lost (the others answer): held back as the consumers' calls there
      // are, and looked at again on the shard's own retry time, not after the worker's outage
      // backoff (up to 5 s), so that its jobs are seen as soon as it answers. That it answers
      // again only the consumers' claims tell: a look that works proves nothing of its replicas.
      health.failed(shard, e);
      return health.retryAt(shard);
    }
    if (found) {
      lock.lock();
      try {
        // at least one job: the claim of the consumer sent says how many more
        unserved[shard] = Math.max(unserved[shard], 1);
        work.signal();
      } finally {
        lock.unlock();
      }
    }
    return System.nanoTime();
  }

  /**
   * An idle consumer's wait, up to {@code timeoutNanos}, for a shard with jobs that no other
   * consumer was sent for, or for a shard to block on itself. The consumer's next claim in a shard
   * it was sent to tells {@link #looked} with {@code sentHere} true; a consumer that blocked tells
   * {@link #unblocked} when its wait ends.
   */
  Turn await(long timeoutNanos) throws InterruptedException {
    lock.lock();
    try {
      if (idle++ == 0) {
        look.signalAll(); // the watchers look while a consumer idles
      }
      long left = timeoutNanos;
      while (true) {
        if (!handOffs.isEmpty()) {
          return new Turn(-1, false, handOffs.poll());
        }
        for (int i = 0; i < unserved.length; i++) {
          int shard = (from + i) % unserved.length;
          if (unserved[shard] > 0 && !health.failing(shard)) {
            unserved[shard]--;
            onTheirWay[shard]++;
            sentAtNanos[shard] = System.nanoTime();
            from = shard + 1;
            return new Turn(shard, false);
          }
        }
        int open = -1;
        int opened = 0;
        for (int i = 0; i < unserved.length; i++) {
          int shard = (from + i) % unserved.length;
          if (!blockedOn[shard] && onTheirWay[shard] == 0 && !health.failing(shard)
              && !broker.claims().shardHangs(shard)) { // (a consumer blocking there would wait for it)
            open = open < 0 ? shard : open;
            opened++;
          }
        }
        // block there only if that leaves a consumer idle here for the other open shards' watchers
        if (open >= 0 && (opened == 1 || idle >= 2)) {
          blockedOn[open] = true;
          from = open + 1;
          return new Turn(open, true);
        }
        if (left <= 0) {
          return Turn.NONE;
        }
        left = work.awaitNanos(left);
      }
    } finally {
      idle--;
      lock.unlock();
    }
  }

  /**
   * The consumer that blocked on {@code shard} is back, its claim there having left {@code left}
   * jobs (-1: it cannot say): those are sent for as after any claim, another idle consumer may
   * take its place, and the shard's watcher looks again while nobody blocks there.
   */
  void unblocked(int shard, long left) {
    lock.lock();
    try {
      blockedOn[shard] = false;
      record(shard, left, false);
      work.signal(); // an idle consumer may block there in its place
      look.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Asks an idle consumer to run {@code handOff} (a busy consumer's
   * {@link Consumer#handOffUnstarted}); false when none idles here (none waits in {@link #await}
   * that is not already asked to run one).
   */
  boolean handOff(Runnable handOff) {
    lock.lock();
    try {
      if (idle <= handOffs.size()) {
        return false;
      }
      handOffs.add(handOff);
      work.signal();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * A hand-off gave back {@code n} jobs to {@code shard}'s ready list: as many idle consumers are
   * sent there, as for jobs a claim left.
   */
  void handedOff(int shard, long n) {
    lock.lock();
    try {
      long before = unserved[shard];
      unserved[shard] += n;
      for (long i = before; i < unserved[shard] && i < before + idle; i++) {
        work.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Whether a consumer blocks on {@code shard}'s ready list itself now ({@link Turn#block()}). */
  boolean blockedOn(int shard) {
    lock.lock();
    try {
      return blockedOn[shard];
    } finally {
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
   * A claim has looked at {@code shard} and left {@code left} jobs there (-1: it cannot say);
   * {@code sentHere} when its consumer was sent there by {@link #await}. What it left, less what
   * the consumers still on their way there take (one job at least each), is sent for at once;
   * when nothing is left and nobody is on the way, the shard's watcher looks again.
   */
  void looked(int shard, long left, boolean sentHere) {
    lock.lock();
    try {
      record(shard, left, sentHere);
    } finally {
      lock.unlock();
    }
  }

  /** {@link #looked}, under the lock. */
  private void record(int shard, long left, boolean sentHere) {
    if (sentHere && onTheirWay[shard] > 0) {
      onTheirWay[shard]--;
    }
    long before = unserved[shard];
    unserved[shard] = Math.max(0, left - onTheirWay[shard]);
    for (long i = before; i < unserved[shard] && i < before + idle; i++) {
      work.signal();
    }
    if (unserved[shard] == 0 && onTheirWay[shard] == 0) {
      look.signalAll();
    }
  }
}
