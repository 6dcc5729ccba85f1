package dev.delayq.worker;

import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.LogText;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.process.RunningFile;
import dev.delayq.process.ShardHealth;
import dev.delayq.redis.Ack;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.ShardFailed;
import dev.delayq.redis.Started;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A Consumer is one thread of a worker: it claims due jobs into its own in-flight list (where and
 * when: its {@link ClaimScheduler}) and runs them one by one with its {@link JobRunner}. Between
 * the claim and the handler a job passes the gates of {@link #step}, each a method of that name.
 *
 * <p>Before each job it confirms that the delivery is still its own: while the worker's
 * {@link Lease} holds (its last confirmed heartbeat is recent), nobody can have taken the job
 * back, and the start costs no Redis call: the job's running mark and the acknowledgement of the
 * one before it go out with the {@link AckSender}. When the lease does not hold (the worker was
 * stopped or paused, or Redis was away) it asks Redis first, and a consumer whose jobs were taken
 * back runs none of them. The same holds for a batch claimed before a failover (see
 * {@link FailoverResync}): the new master may not have the claim. It writes the job it runs in
 * the worker's crash record, so that after a crash only that job is charged. The acknowledgement
 * of a batch's last job rides on the next claim ({@link PendingAck}).
 *
 * <p>Its {@link #pass()} runs under {@link RunUntilShutdown}. A call that failed leaves the
 * consumer unsure of what its list holds, so before claiming again it gives back everything it
 * has not started ({@link GiveBack}); that is also what becomes of a claim that
 * {@code redis.replicaAcks} could not confirm, which must not run. A call that failed in one shard
 * of several holds back that shard alone ({@link ShardHealth}). Told to be quiet, it finishes the
 * job in hand, gives back the rest and is done.
 */
final class Consumer {
  private static final Logger log = LoggerFactory.getLogger(Consumer.class);

  /** The settings a consumer claims by. */
  record Settings(double pollSeconds, long heartbeatTtlMs, int prefetch) {}

  /**
   * What a consumer shares with the others of its worker in its queue; {@code watch} is null on a
   * queue of one shard (and for a consumer that is driven without one: it blocks on its home shard
   * then), {@code gate} on a queue of several; {@code pace} null only for a consumer driven without
   * either (a claim takes its fair share then).
   */
  record Shared(RedisBroker broker, JobRunner runner, Watchdog watchdog, Lease lease, AckSender acks,
      Finisher finisher, RunningFile crashRecord, StatsRecorder stats, FailoverResync resync, ShardWatch watch,
      IdleGate gate, ClaimPace pace) {
    Shared(RedisBroker broker, JobRunner runner, Watchdog watchdog, Lease lease, AckSender acks,
        Finisher finisher, RunningFile crashRecord, StatsRecorder stats, FailoverResync resync) {
      this(broker, runner, watchdog, lease, acks, finisher, crashRecord, stats, resync, null, null, null);
    }
  }

  private final String id;
  private final int slot;
  private final Shared shared;
  private final RedisBroker broker;
  private final BooleanSupplier quiet;
  private final BooleanSupplier abandon;
  private final AckSender.Channel acks;
  private final Refusals refusals;
  /** The health of the queue's shards, shared by the worker's consumers and its ack sender. */
  private final ShardHealth health;
  private final int shards;

  // its parts: state of this consumer's thread, read and written by that thread only
  private final ClaimedBatch batch;
  private final PendingAck pending;
  private final GiveBack giveBack;
  private final ClaimScheduler claims;

  // state, read and written by this consumer's thread only (volatile: the worker reads it at exit)
  /**
   * The lease under which the job in hand was last known this consumer's (its batch's claim, or
   * its start confirmed by Redis), or -1: a try of its outcome whose reply is lost is held against it.
   */
  private int ownedUnder = Refusals.NOT_LANDED;
  private boolean unsure;
  private volatile Delivery running;
  private volatile Watchdog.Slot watchdogSlot;
  private volatile boolean done;

  /** What this consumer committed to run, and what another consumer may hand off from behind it (IdleGate). */
  private final HandOffBook handOffs = new HandOffBook();

  /** Consumer {@code id}, the {@code slot}-th (from 0) of its worker. */
  Consumer(String id, int slot, Shared shared, Settings settings, BooleanSupplier quiet, BooleanSupplier abandon) {
    this.id = id;
    this.slot = slot;
    this.shared = shared;
    this.broker = shared.broker();
    this.quiet = quiet;
    this.abandon = abandon;
    this.acks = shared.acks().channel(id);
    this.refusals = shared.acks().refusals();
    this.health = shared.acks().health();
    this.shards = broker.shards();
    long masterEpoch = shared.resync().epoch();
    ClaimRotation rotation = new ClaimRotation(slot, shards);
    this.batch = new ClaimedBatch(masterEpoch);
    this.pending = new PendingAck(id, broker, acks, refusals);
    this.giveBack = new GiveBack(id, broker, acks, pending, batch, rotation, shared.resync(), health, quiet,
        masterEpoch);
    this.claims = new ClaimScheduler(id, shared, settings, quiet, pending, batch, giveBack, rotation);
  }

  String id() {
    return id;
  }

  /** True once the consumer has drained: nothing in hand, nothing claimed. */
  boolean isDone() {
    return done;
  }

  /** True when this consumer's thread is lost in a handler that ignored its interruption. */
  boolean isStuck() {
    Watchdog.Slot s = watchdogSlot;
    return s != null && s.isStuck();
  }

  /** The delivery whose handler runs now, if any: what a crash would charge. */
  Optional<String> runningNow() {
    Delivery d = running;
    return d == null ? Optional.empty() : Optional.of(d.element());
  }

  /** True while it holds claimed jobs to run (or, unsure of its list, has something to give back). */
  boolean holdsJobs() {
    return batch.holdsUnstarted() || unsure;
  }

  /** The jobs of the batch in hand (claimed by its last claim). */
  int batchSize() {
    return batch.jobs.size();
  }

  /** Whether a claim that finds nothing due waits with BLMOVE (true, the default) or returns at once. */
  void blockWhenIdle(boolean block) {
    claims.blockWhenIdle(block);
  }

  /**
   * Sends the acknowledgement that would ride on this consumer's next claim with the sender now:
   * its thread moves on to another queue, and this one's next claim may be a while.
   */
  void handOffAck() {
    pending.handOff();
  }

  /** Gives back every claimed job it has not started, uncounted (see {@link MultiQueueConsumer}). */
  void giveBackUnstarted() {
    giveBack.giveBackAll();
  }

  /** One step: a claim, or one job. Any failure leaves the consumer unsure of its list. */
  long pass() {
    if (watchdogSlot == null) {
      watchdogSlot = shared.watchdog().register(id, Thread.currentThread());
    }
    try {
      step();
    } catch (RuntimeException | Error e) {
      if (e instanceof RuntimeException r) {
        pending.callFailed(r);
      }
      if (e instanceof ShardFailed f && !quiet.getAsBoolean()) {
        // one shard's call: that shard is held back, and this consumer goes on with the others
        giveBack.shardFailed(f.shard(), f);
        if (f.ack() != Ack.NONE) {
          pending.answered(f.ack());
        }
        return 0;
      }
      if (quiet.getAsBoolean() && abandon.getAsBoolean()) {
        log.error("{}: could not give back its claimed jobs at shutdown ({}); they are taken back "
            + "when its worker exits", id, e.toString());
        done = true;
        return 0;
      }
      unsure = true;
      throw e;
    }
    return 0;
  }

  /**
   * The gates between a claim and the handler, in the order a job passes them: told to be quiet,
   * or unsure of its list, it gives back ({@link GiveBack}); between batches, it gives back what a
   * failover or a failed shard left owed, then claims ({@link ClaimScheduler}); before each job,
   * room in the crash record, the commit against a hand-off, and the start (below).
   */
  private void step() {
    if (quiet.getAsBoolean()) {
      giveBack.giveBackAll();
      done = true;
      return;
    }
    if (unsure) {
      giveBack.giveBackAll();
      unsure = false;
    }
    if (!batch.holdsUnstarted()) {
      giveBack.resyncAfterFailover();
      giveBack.giveBackOwed();
      claims.claim();
      return;
    }
    Claimed job = batch.jobs.get(batch.next);
    if (!roomInCrashRecord()) {
      return; // told to be quiet meanwhile: the next step gives the batch back
    }
    if (!commitNext()) {
      return; // its jobs from this one on were handed off to idle consumers
    }
    ownedUnder = batch.epoch; // a start that asks Redis says its own
    if (!batch.nextIsMarked && !start(job)) {
      return;
    }
    batch.next++;
    batch.nextIsMarked = false;
    run(job);
  }

  /**
   * Before a job runs: waits until finishing it cannot push a delivery whose acknowledgement is
   * not sent out of the crash record's ring of the last {@link RunningFile#FINISHED_KEPT}
   * finished, or a crash at that moment would run that job again at the same attempt. The
   * pending acknowledgement counts (the start reports it). Only an ack sender a whole ring behind
   * (a starved thread, Redis not answering) makes it wait. False when told to be quiet first.
   */
  private boolean roomInCrashRecord() {
    if (shared.crashRecord() == null) {
      return true;
    }
    return acks.awaitAtMost(RunningFile.FINISHED_KEPT - 1 - (pending.held() ? 1 : 0), quiet);
  }

  /**
   * Commits to run the batch's next job, unless another consumer handed it off (with the rest)
   * while this one ran the job before: then the batch is dropped, once that hand-off's call has
   * returned (had it failed, those jobs may still be in this consumer's list: it is unsure, and
   * gives back what it has not started before its next claim). False when handed off.
   */
  private boolean commitNext() {
    HandOffBook.Commit commit = handOffs.commit(batch.jobs, batch.next);
    if (commit == HandOffBook.Commit.COMMITTED) {
      return true;
    }
    unsure |= commit == HandOffBook.Commit.UNSURE;
    batch.drop();
    return false;
  }

  /** Confirms the delivery is still this consumer's and marks it running; false when taken back. */
  private boolean start(Claimed job) {
    if (shared.lease().holdsSince(batch.epoch, System.nanoTime())
        && shared.resync().epoch() == batch.masterEpoch) {
      pending.reportWith(job.delivery());
      return true;
    }
    int askedUnder = refusals.landed(); // read before the call: a lease renewed after it covers nothing
    int shard = broker.keys().shardIndexOf(job.id());
    if (shards > 1) {
      pending.handOffUnlessIn(shard); // one call to one shard: a failure there is that shard's alone
    }
    Started s;
    try {
      s = broker.starts().start(id, job.delivery(), pending.get());
    } catch (JedisException e) {
      if (shards == 1 || quiet.getAsBoolean()) {
        throw e;
      }
      pending.callFailed(e);
      giveBack.shardFailed(shard, e); // the batch in hand is this shard's: given back when it answers
      return false;
    }
    health.worked(shard);
    pending.answered(s.ack());
    if (s.started()) {
      ownedUnder = askedUnder;
    } else {
      log.warn("{}: its claimed jobs were taken back (its heartbeat expired while it was stopped, "
          + "paused or cut off, or a Redis failover lost the claim); it runs none of the {} left of "
          + "its batch", id, batch.jobs.size() - batch.next);
      batch.jobs = List.of();
      unsure = true;
    }
    return s.started();
  }

  private void run(Claimed job) {
    running = job.delivery();
    if (shared.crashRecord() != null) {
      shared.crashRecord().running(slot, job.delivery().element());
    }
    Outcome outcome = null;
    long startedAt = System.nanoTime(); // for the worker's claim pace
    try {
      outcome = shared.runner().run(watchdogSlot, job);
    } finally {
      if (shared.pace() != null) {
        shared.pace().ran(System.nanoTime() - startedAt);
      }
      if (shared.crashRecord() != null) {
        if (outcome instanceof Outcome.Ack ack) {
          // its acknowledgement leaves a moment later: a crash before then acknowledges it, as
          // cancelled when it was ('!<delivery>', as the acknowledgement itself would say)
          // into a cell whose acknowledgement was sent: one shard's may be held back (AckSender)
          shared.crashRecord().finished(slot, ackOf(job, ack).ackElement(), acks::isUnsent);
        }
        shared.crashRecord().idle(slot);
      }
      running = null;
    }
    if (outcome instanceof Outcome.Ack ack) {
      pending.hold(ackOf(job, ack), ownedUnder);
    } else {
      apply(job, outcome);
    }
  }

  /** The delivery an acknowledgement sends: this one, marked when the job ended cancelled. */
  private static Delivery ackOf(Claimed job, Outcome.Ack ack) {
    return ack.cancelled() ? job.delivery().endedCancelled() : job.delivery();
  }

  /**
   * A ticket to hand off the claimed jobs this consumer holds behind the one it runs, or null when
   * it holds none (it runs its batch's last, or runs nothing). Any thread.
   */
  HandOffBook.Ticket handOffTicket() {
    return handOffs.ticket(running != null);
  }

  /**
   * Gives back to ready the claimed jobs this consumer holds behind the one it ran when {@code ticket}
   * was taken, so that idle consumers run them, unless it has moved on since. Runs on another
   * consumer's thread (its worker's {@link IdleGate} or {@link ShardWatch} wakes one for it); this
   * consumer starts none of them after this.
   */
  void handOffUnstarted(HandOffBook.Ticket ticket) {
    List<Claimed> rest = handOffs.takeForHandOff(ticket);
    if (rest == null) {
      return;
    }
    boolean sent = false;
    int shard = shards == 1 ? 0 : broker.keys().shardIndexOf(rest.get(0).id()); // a batch is one shard's
    try {
      int n = broker.acks().handOffUnstarted(id, shard, rest.stream().map(Claimed::delivery).toList());
      sent = true;
      log.debug("{}: handed {} claimed job(s) to idle consumers while its handler ran long", id, n);
      if (shared.gate() != null) {
        shared.gate().leftWaiting(n);
      }
      if (shared.watch() != null) {
        shared.watch().handedOff(shard, n);
      }
    } catch (RuntimeException e) {
      log.warn("{}: could not hand its claimed jobs to idle consumers ({}); it gives them back itself",
          id, e.toString());
    } finally {
      handOffs.sent(sent);
    }
  }

  /** A retry, reschedule or dead-letter, applied now (retried through Redis outages). */
  private void apply(Claimed job, Outcome outcome) {
    try {
      shared.finisher().finish(id, job.delivery(), outcome, ownedUnder);
    } catch (InterruptedException e) {
      if (!abandon.getAsBoolean()) {
        throw new RunUntilShutdown.CannotGoOn("interrupted while applying the " + Finisher.name(outcome)
            + " of job " + LogText.escape(job.id()), e);
      }
      // the drain ran out of time: the job stays in flight and its worker's exit takes it back
      log.warn("{}: the {} of job {} did not land before the drain timeout; the job is taken back "
          + "at exit", id, Finisher.name(outcome), LogText.escape(job.id()));
    } catch (RuntimeException e) {
      // not a Redis outage (those are retried): this consumer no longer knows where the job is
      throw new RunUntilShutdown.CannotGoOn("could not apply the " + Finisher.name(outcome)
          + " of job " + LogText.escape(job.id()), e);
    }
  }
}
