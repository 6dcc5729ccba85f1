package dev.delayq.worker;

import dev.delayq.process.RedisOutage;
import dev.delayq.process.RedisTrouble;
import dev.delayq.process.ShardHealth;
import dev.delayq.redis.Ack;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisErrors;
import dev.delayq.redis.Report;
import dev.delayq.worker.AckSender.Item;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * One shard's lane of the {@link AckSender}: the reports of its shard, sent in order by a thread
 * of its own, one call with everything gathered while the last was out, and its retries. A lane
 * whose calls fail keeps its reports and tries again after the shard's {@link ShardHealth}
 * backoff, while the other lanes go on sending theirs.
 *
 * <p>{@link #add} is called by the consumers' threads (the queue is concurrent, {@code idle} and
 * {@code thread} volatile); everything else, {@code retrying} included, by the lane's own thread only.
 */
final class AckLane {
  /** Its lines log as the sender's, as they did when this was part of it: a log setting for it still applies. */
  private static final Logger log = LoggerFactory.getLogger(AckSender.class);
  private static final int MOST_PER_CALL = 4_096;
  private static final long IDLE_PARK_NANOS = 100_000_000L;
  private static final long RETRY_LOOK_NANOS = 50_000_000L;

  private final RedisBroker broker;
  private final BooleanSupplier abandon;
  private final ShardHealth health;
  private final Refusals refusals;
  /** The sender's count of reports not sent yet, over every lane. */
  private final AtomicLong unsent;
  private final int shard;
  private final RedisOutage outage;
  private final ConcurrentLinkedQueue<Item> queue = new ConcurrentLinkedQueue<>();
  /** Reports whose call failed, sent first (in order) when the shard's retry is due. */
  private final List<Item> retrying = new ArrayList<>();
  /** True while the lane waits for reports: only then does a report need to wake it. */
  private volatile boolean idle;
  private volatile Thread thread;

  AckLane(int shard, RedisOutage outage, RedisBroker broker, BooleanSupplier abandon, ShardHealth health,
      Refusals refusals, AtomicLong unsent) {
    this.shard = shard;
    this.outage = outage;
    this.broker = broker;
    this.abandon = abandon;
    this.health = health;
    this.refusals = refusals;
    this.unsent = unsent;
  }

  int shard() {
    return shard;
  }

  /** The lane's thread, once started: {@link #add} wakes it. */
  void runOn(Thread t) {
    thread = t;
  }

  /** Wakes the lane's thread, if it waits (at close, so that it sees it). */
  void wake() {
    Thread t = thread;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  void add(Item item) {
    queue.add(item);
    if (idle) {
      LockSupport.unpark(thread);
    }
  }

  /**
   * A pass of the lane's loop: one call with everything reported in this shard, or a short wait
   * for a report or a retry.
   */
  long pass() {
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
      List<Delivery> f = finished.computeIfAbsent(i.channel().consumer(), c -> new ArrayList<>(2));
      if (i.finished() != null) {
        f.add(i.finished());
      }
      if (i.started() != null) {
        started.put(i.channel().consumer(), i.started()); // the latest start is the one running
      }
    }
    List<Report> reports = new ArrayList<>(finished.size());
    finished.forEach((c, f) -> reports.add(new Report(c, started.get(c), f)));
    try {
      List<Ack[]> answers = broker.acks().ackAllAnswers(reports);
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
        givingUp(round.size(), e, broker.acks().unconfirmedAcks(reports, e));
        sent(round);
      } else {
        // sent again, in order, once this shard's retry is due; what this try acknowledged on
        // the master, unconfirmed, is noted, for the retry may find it gone
        List<Ack[]> unconfirmed = broker.acks().unconfirmedAcks(reports, e);
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
        places.computeIfAbsent(round.get(at).channel().consumer(), c -> new ArrayList<>()).add(at);
      }
    }
    return places;
  }

  private void sent(List<Item> round) {
    unsent.addAndGet(-round.size());
    round.forEach(i -> i.channel().sent(shard, i));
  }
}
