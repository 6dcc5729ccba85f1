package dev.delayq.worker;

import dev.delayq.process.RedisOutage;
import dev.delayq.process.ShardHealth;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.RedisBroker;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * Sends what the consumers report as they go: the deliveries they finished (acknowledged: the
 * job is forgotten) and the one each has just started (its running mark, for the heartbeat path
 * of recovery). Whatever gathered while the last call was out goes in the next, every consumer
 * together in one script call, so a job costs no round trip of its own and a finished job waits
 * for its acknowledgement about one round trip. Retried through Redis outages until sent or
 * abandoned at shutdown; a fenced acknowledgement (the job was taken back) is logged. A call that
 * ran but whose replicas did not confirm it ({@code redis.replicaAcks}), or whose reply was lost
 * after it went out, is sent again, and a delivery it had acknowledged is then refused as gone:
 * {@link Refusals} tells that echo from a job taken back.
 *
 * <p>Each shard of the queue has its own lane: a thread, the reports of its shard in order, and its
 * retries. A shard whose calls fail (a cluster master killed, or with {@code redis.replicaAcks} a
 * promoted master with no replica yet) keeps its reports and tries again after the
 * {@link ShardHealth} backoff (50 ms doubling to 1 s, at once after a change of master), while the
 * other lanes go on sending theirs: one shard's failure holds back that shard's acknowledgements
 * alone ({@link AckLane}). (With one pipeline over every shard, one failed WAIT failed them all,
 * and the whole worker waited, up to 5 s between tries.)
 */
final class AckSender implements AutoCloseable {

  /**
   * A report; for a finished delivery, {@code landing} is what {@link Refusals#landed} said at the
   * last try that acknowledged it unconfirmed ({@link Refusals#NOT_LANDED}: none did), and
   * {@code ownedUnder} the lease under which it was last known the consumer's (a try whose reply
   * is lost is held against that one: see {@link Finisher#finish(String, Delivery, Outcome, int)}).
   */
  record Item(Channel channel, Delivery started, Delivery finished, int landing, int ownedUnder) {
    Item(Channel channel, Delivery started, Delivery finished) {
      this(channel, started, finished, Refusals.NOT_LANDED, Refusals.NOT_LANDED);
    }

    Item landed(int at) {
      return new Item(channel, started, finished, at, ownedUnder);
    }
  }

  /** One consumer's way to the sender: what it reports, and what of that is still unsent. */
  final class Channel {
    private final String consumer;
    /** Per shard, how many of its reports there are not sent yet. */
    private final AtomicLong[] unsentInShard = new AtomicLong[lanes.length];
    /** The acknowledgements (their {@link Delivery#ackElement()}) reported and not yet sent. */
    private final Set<String> unsentAcks = ConcurrentHashMap.newKeySet();
    /** The consumer's thread while it waits in {@link #awaitAtMost}: a send wakes it. */
    private volatile Thread waiting;

    private Channel(String consumer) {
      this.consumer = consumer;
      for (int s = 0; s < unsentInShard.length; s++) {
        unsentInShard[s] = new AtomicLong();
      }
    }

    String consumer() {
      return consumer;
    }

    /**
     * Reports that the consumer started {@code started} and finished {@code finished} (either may be
     * null), the latter not known to be owned under any lease.
     */
    void report(Delivery started, Delivery finished) {
      report(started, finished, Refusals.NOT_LANDED, Refusals.NOT_LANDED);
    }

    /**
     * As {@link #report(Delivery, Delivery)}, for a {@code finished} delivery last known the
     * consumer's under the lease {@code ownedUnder}, which an earlier call acknowledged
     * unconfirmed, as {@link Refusals#landed} said then ({@code landing}), unless NOT_LANDED.
     */
    void report(Delivery started, Delivery finished, int landing, int ownedUnder) {
      int from = started == null ? -1 : shardOf(started);
      int to = finished == null ? -1 : shardOf(finished);
      if (finished != null) {
        unsentAcks.add(finished.ackElement());
      }
      if (from >= 0 && to >= 0 && from != to) {
        // each to its own shard's lane
        add(from, new Item(this, started, null));
        add(to, new Item(this, null, finished, landing, ownedUnder));
      } else {
        add(Math.max(from, to), new Item(this, started, finished, landing, ownedUnder));
      }
    }

    private void add(int shard, Item item) {
      AckSender.this.unsent.incrementAndGet();
      unsentInShard[shard].incrementAndGet();
      lanes[shard].add(item);
    }

    /** Waits until everything this consumer reported was sent (or abandoned); false at the deadline. */
    boolean flush(long deadlineNanos) throws InterruptedException {
      for (AtomicLong inShard : unsentInShard) {
        if (!await(inShard, deadlineNanos)) {
          return false;
        }
      }
      return true;
    }

    /** As {@link #flush(long)}, for what it reported in {@code shard} only. */
    boolean flush(int shard, long deadlineNanos) throws InterruptedException {
      return await(unsentInShard[shard], deadlineNanos);
    }

    /** How many of its reports in {@code shard} are not sent yet. */
    long unsent(int shard) {
      return unsentInShard[shard].get();
    }

    /** True while the acknowledgement {@code ackElement} was reported and is not sent. */
    boolean isUnsent(String ackElement) {
      return unsentAcks.contains(ackElement);
    }

    /**
     * Waits until at most {@code most} of this consumer's acknowledgements are unsent, woken by
     * each send; false when {@code giveUp} holds first (looked at every 10 ms).
     */
    boolean awaitAtMost(long most, BooleanSupplier giveUp) {
      while (unsentAcks.size() > most) {
        if (giveUp.getAsBoolean()) {
          return false;
        }
        waiting = Thread.currentThread();
        if (unsentAcks.size() > most) { // read after waiting is set: a send meanwhile unparks us
          LockSupport.parkNanos(this, 10_000_000L);
        }
        waiting = null;
      }
      return true;
    }

    /** The lane of {@code shard} sent (or gave up) {@code i}. The lane's thread. */
    void sent(int shard, Item i) {
      if (i.finished() != null) {
        unsentAcks.remove(i.finished().ackElement());
      }
      unsentInShard[shard].decrementAndGet();
      Thread t = waiting;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
  }

  private final RedisBroker broker;
  private final ShardHealth health;
  private final Refusals refusals;
  private final AckLane[] lanes;
  private final AtomicLong unsent = new AtomicLong();
  private volatile boolean closed;

  AckSender(RedisBroker broker, RedisOutage outage, BooleanSupplier abandon) {
    this(broker, shard -> outage, abandon, ShardHealth.unwatched(broker.shards()), Refusals.withoutLease());
  }

  /**
   * A sender whose lane of shard {@code s} logs its outages through {@code outages.apply(s)}, and
   * whose refused acknowledgements {@code refusals} tells apart.
   */
  AckSender(RedisBroker broker, IntFunction<RedisOutage> outages, BooleanSupplier abandon,
      ShardHealth health, Refusals refusals) {
    this.broker = broker;
    this.health = health;
    this.refusals = refusals;
    this.lanes = new AckLane[broker.shards()];
    for (int s = 0; s < lanes.length; s++) {
      lanes[s] = new AckLane(s, outages.apply(s), broker, abandon, health, refusals, unsent);
    }
  }

  private int shardOf(Delivery d) {
    return lanes.length == 1 ? 0 : broker.keys().shardIndexOf(d.id());
  }

  /** Starts sending, a thread per shard; {@code onCannotGoOn} is told should one not go on. */
  void start(java.util.function.Consumer<Throwable> onCannotGoOn) {
    for (AckLane lane : lanes) {
      String name = lanes.length == 1 ? "ack-sender" : "ack-sender-" + lane.shard();
      lane.runOn(RunUntilShutdown.of(name, lane::pass).until(() -> closed)
          .onCannotGoOn(onCannotGoOn, java.time.Duration.ofSeconds(30)).build().start());
    }
  }

  /** The health of the shards, as the sends and the consumers' calls found it. */
  ShardHealth health() {
    return health;
  }

  /** How the worker tells a refused acknowledgement or outcome that is an echo from a job taken back. */
  Refusals refusals() {
    return refusals;
  }

  /** The channel of {@code consumer}; each consumer takes its own once. */
  Channel channel(String consumer) {
    return new Channel(consumer);
  }

  /** Waits until every report was sent (or abandoned); false at the deadline. */
  boolean flush(long deadlineNanos) throws InterruptedException {
    return await(unsent, deadlineNanos);
  }

  private static boolean await(AtomicLong count, long deadlineNanos) throws InterruptedException {
    while (count.get() > 0) {
      if (System.nanoTime() - deadlineNanos >= 0) {
        return false;
      }
      Thread.sleep(1);
    }
    return true;
  }

  @Override
  public void close() {
    closed = true;
    for (AckLane lane : lanes) {
      lane.wake();
    }
  }
}
