package dev.delayq.worker;

import dev.delayq.redis.Ack;
import dev.delayq.redis.Report;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RedisTrouble;
import dev.delayq.process.ShardHealth;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisErrors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

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
 * alone. (With one pipeline over every shard, one failed WAIT failed them all, and the whole
 * worker waited, up to 5 s between tries.)
 */
final class AckSender implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AckSender.class);
  private static final int MOST_PER_CALL = 4_096;
  private static final long IDLE_PARK_NANOS = 100_000_000L;
  private static final long RETRY_LOOK_NANOS = 50_000_000L;

  /**
   * A report; for a finished delivery, {@code landing} is what {@link Refusals#landed} said at the
   * last try that acknowledged it unconfirmed ({@link Refusals#NOT_LANDED}: none did), and
   * {@code ownedUnder} the lease under which it was last known the consumer's (a try whose reply
   * is lost is held against that one: see {@link Finisher#finish(String, Delivery, Outcome, int)}).
   */
  private record Item(Channel channel, Delivery started, Delivery finished, int landing, int ownedUnder) {
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

    private void sent(int shard, Item i) {
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

  /** One shard's reports, sent by a thread of its own. */
  private final class Lane {
    private final int shard;
    private final RedisOutage outage;
    private final ConcurrentLinkedQueue<Item> queue = new ConcurrentLinkedQueue<>();
    /** Reports whose call failed, sent first (in order) when the shard's retry is due. */
    private final List<Item> retrying = new ArrayList<>();
    /** True while the lane waits for reports: only then does a report need to wake it. */
    private volatile boolean idle;
    private volatile Thread thread;

    Lane(int shard, RedisOutage outage) {
      this.shard = shard;
      this.outage = outage;
    }

    void add(Item item) {
      queue.add(item);
      if (idle) {
        LockSupport.unpark(thread);
      }
    }

    /** One call with everything reported in this shard, or a short wait for a report or a retry. */
    long send() {
      if (!retrying.isEmpty() && !health.mayCall(shard)) {
        long wait = Math.min(RETRY_LOOK_NANOS, health.retryAt(shard) - System.nanoTime());
        if (wait > 0 && !health.masterChangedSinceFailure(shard)) {
          LockSupport.parkNanos(this, wait);
        }
        return 0;
      }
      List<Item> round = new ArrayList<>(retrying);
      retrying.clear();
      for (Item i; round.size() < MOST_PER_CALL && (i = queue.poll()) != null; ) {
        round.add(i);
      }
      if (round.isEmpty()) {
        idle = true;
        if (queue.isEmpty()) { // checked after idle is set: a report added meanwhile wakes us
          LockSupport.parkNanos(this, IDLE_PARK_NANOS);
        }
        idle = false;
        return 0;
      }
      Map<String, List<Delivery>> finished = new LinkedHashMap<>();
      Map<String, Delivery> started = new LinkedHashMap<>();
      for (Item i : round) {
        List<Delivery> f = finished.computeIfAbsent(i.channel().consumer, c -> new ArrayList<>(2));
        if (i.finished() != null) {
          f.add(i.finished());
        }
        if (i.started() != null) {
          started.put(i.channel().consumer, i.started()); // the latest start is the one running
        }
      }
      List<Report> reports = new ArrayList<>(finished.size());
      finished.forEach((c, f) -> reports.add(new Report(c, started.get(c), f)));
      try {
        List<Ack[]> answers = broker.ackAllAnswers(reports);
        Map<String, List<Integer>> places = null;
        for (int r = 0; r < reports.size(); r++) {
          for (int i = 0; i < answers.get(r).length; i++) {
            if (answers.get(r)[i].refused()) {
              places = places == null ? finishedPlaces(round) : places;
              String consumer = reports.get(r).consumerId();
              refusals.ackRefused(consumer, reports.get(r).finished().get(i), answers.get(r)[i],
                  round.get(places.get(consumer).get(i)).landing());
            }
          }
        }
        sent(round);
        health.worked(shard);
        outage.succeeded();
      } catch (RuntimeException e) {
        if (abandon.getAsBoolean()) {
          givingUp(round.size(), e, broker.unconfirmedAcks(reports, e));
          sent(round);
        } else {
          // sent again, in order, once this shard's retry is due; what this try acknowledged on
          // the master, unconfirmed, is noted, for the retry may find it gone
          List<Ack[]> unconfirmed = broker.unconfirmedAcks(reports, e);
          if (unconfirmed == null && RedisErrors.isReplyLost(e)) {
            // what this try did is unknown: each of its acknowledgements may have landed, if its
            // delivery was still the consumer's (held against the lease it was last known so under)
            for (int at = 0; at < round.size(); at++) {
              Item i = round.get(at);
              if (i.finished() != null && i.landing() == Refusals.NOT_LANDED) {
                round.set(at, i.landed(i.ownedUnder()));
              }
            }
          }
          if (unconfirmed != null) {
            int landing = refusals.appliedOnMaster();
            Map<String, List<Integer>> places = finishedPlaces(round);
            for (int r = 0; r < reports.size(); r++) {
              for (int i = 0; i < unconfirmed.get(r).length; i++) {
                if (unconfirmed.get(r)[i] == Ack.ACKED) {
                  int at = places.get(reports.get(r).consumerId()).get(i);
                  round.set(at, round.get(at).landed(landing));
                }
              }
            }
          }
          retrying.addAll(round);
        }
        if (!(e instanceof JedisException je)) {
          throw e;
        }
        health.failed(shard, je);
        outage.failed(je); // logs the outage once; the backoff is the shard's
      }
      return 0;
    }

    /**
     * Says that {@code count} reports are given up at shutdown, by what their last try met
     * ({@code e}); {@code unconfirmed}, when it ran unconfirmed, is what it acknowledged on the master.
     */
    private void givingUp(int count, RuntimeException e, List<Ack[]> unconfirmed) {
      long done = unconfirmed == null ? 0 : unconfirmed.stream().flatMap(java.util.Arrays::stream)
          .filter(a -> a == Ack.ACKED).count();
      String trouble = RedisTrouble.of(e).said(e, false);
      if (done == 0) {
        log.error("giving up {} acknowledgement(s): {} at shutdown; those jobs stay in "
            + "flight and are taken back, uncharged", count, trouble);
      } else {
        log.error("giving up {} acknowledgement(s): {} at shutdown; {} of those jobs are acknowledged "
            + "on the master, unconfirmed (a failover may lose that, and then they are taken back), "
            + "the others stay in flight and are taken back, uncharged", count, trouble, done);
      }
    }

    /**
     * Per consumer, where in {@code round} its finished deliveries are, in the order of its report.
     * Read only when a delivery was refused or a try unconfirmed: a round that lands costs nothing more.
     */
    private Map<String, List<Integer>> finishedPlaces(List<Item> round) {
      Map<String, List<Integer>> places = new HashMap<>();
      for (int at = 0; at < round.size(); at++) {
        if (round.get(at).finished() != null) {
          places.computeIfAbsent(round.get(at).channel().consumer, c -> new ArrayList<>()).add(at);
        }
      }
      return places;
    }

    private void sent(List<Item> round) {
      unsent.addAndGet(-round.size());
      round.forEach(i -> i.channel().sent(shard, i));
    }
  }

  private final RedisBroker broker;
  private final BooleanSupplier abandon;
  private final ShardHealth health;
  private final Refusals refusals;
  private final Lane[] lanes;
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
    this.abandon = abandon;
    this.health = health;
    this.refusals = refusals;
    this.lanes = new Lane[broker.shards()];
    for (int s = 0; s < lanes.length; s++) {
      lanes[s] = new Lane(s, outages.apply(s));
    }
  }

  private int shardOf(Delivery d) {
    return lanes.length == 1 ? 0 : broker.keys().shardIndexOf(d.id());
  }

  /** Starts sending, a thread per shard; {@code onCannotGoOn} is told should one not go on. */
  void start(java.util.function.Consumer<Throwable> onCannotGoOn) {
    for (Lane lane : lanes) {
      String name = lanes.length == 1 ? "ack-sender" : "ack-sender-" + lane.shard;
      lane.thread = RunUntilShutdown.of(name, lane::send).until(() -> closed)
          .onCannotGoOn(onCannotGoOn, java.time.Duration.ofSeconds(30)).build().start();
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
    for (Lane lane : lanes) {
      Thread t = lane.thread;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
  }
}
