package dev.delayq.worker;

import dev.delayq.redis.Ack;
import dev.delayq.redis.Batch;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.Released;
import dev.delayq.redis.ShardFailed;
import dev.delayq.redis.Started;
import dev.delayq.redis.Woken;
import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.LogText;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.process.RunningFile;
import dev.delayq.process.ShardHealth;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisErrors;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A Consumer is one thread of a worker: it claims due jobs into its own in-flight list (a fair
 * share of the backlog in one call; when nothing waits, it blocks with BLMOVE and the job that
 * wakes it comes with the rest of a fair share of what waits then) and runs them one by one with
 * its {@link JobRunner}. When a claim left ready empty (its answer says what it left), its next
 * claim is that wait again, not a claim that would as a rule find nothing: at a steady rate the
 * consumers keep up with, a job costs the wait and its claim.
 *
 * <p>Before each job it confirms that the delivery is still its own: while the worker's
 * {@link Lease} holds (its last confirmed heartbeat is recent), nobody can have taken the job
 * back, and the start costs no Redis call: the job's running mark and the acknowledgement of the
 * one before it go out with the {@link AckSender}. When the lease does not hold (the worker was
 * stopped or paused, or Redis was away) it asks Redis first, and a consumer whose jobs were taken
 * back runs none of them. The same holds for a batch claimed before a failover (see
 * {@link FailoverResync}): the new master may not have the claim. It writes the job it runs in
 * the worker's crash record, so that after a crash only that job is charged. The acknowledgement
 * of a batch's last job rides on the next claim.
 *
 * <p>On a queue of several shards it claims from one shard at a time: its {@link ClaimRotation}
 * says which shards a claim tries first. When none has due jobs it waits for its worker's
 * {@link ShardWatch}, which sends it to a shard with jobs, or lets it block on a shard that no
 * other consumer of the worker blocks on (as on one shard) while that leaves a consumer idle for
 * the shards nobody blocks on.
 * A call that fails in one shard (its cluster node lost, or its replicas not confirming) holds
 * back that shard alone ({@link ShardHealth}): the consumer drops a batch of that shard, owes the
 * shard a give-back of its in-flight list there (after its acknowledgements there are sent), and
 * meanwhile claims from the others, with no backoff of its own; after a change of master it owes
 * every shard that give-back (see {@link FailoverResync}), each on its own.
 *
 * <p>Its {@link #pass()} runs under {@link RunUntilShutdown}. A call that failed leaves the
 * consumer unsure of what its list holds, so before claiming again it gives back everything it
 * has not started; that is also what becomes of a claim that {@code redis.replicaAcks} could not
 * confirm, which must not run. Told to be quiet, it finishes the job in hand, gives back the rest
 * and is done.
 */
final class Consumer {
  private static final Logger log = LoggerFactory.getLogger(Consumer.class);
  /** Longer than the longest Redis outage backoff, so the sender's retry after an outage lands first. */
  private static final long FLUSH_BEFORE_GIVING_BACK_NANOS = 6_000_000_000L;

  /** The settings a consumer claims by. */
  record Settings(double pollSeconds, long heartbeatTtlMs, int prefetch) {}

  /**
   * What a consumer shares with the others of its worker; {@code watch} is null on a queue of one
   * shard (and for a consumer that is driven without one: it blocks on its home shard then);
   * {@code gate} and {@code pace} are null but on a worker of one queue of one shard (every idle
   * consumer blocks in Redis then, and a claim takes its fair share).
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
  private final Settings settings;
  private final BooleanSupplier quiet;
  private final BooleanSupplier abandon;
  private final AckSender.Channel acks;
  private final Refusals refusals;

  // state, read and written by this consumer's thread only (volatile: the worker reads it at exit)
  private List<Claimed> batch = List.of();
  private int next;
  /** The first job of a batch comes marked running by the claim itself. */
  private boolean nextIsMarked;
  /** The lease the batch was claimed under, or -1 when it did not hold then. */
  private int batchEpoch = -1;
  /** The epoch of the Redis master the batch was claimed on. */
  private long batchMasterEpoch;
  /** The epoch of the master this consumer last gave back its stale deliveries to. */
  private long seenMasterEpoch;
  /**
   * The lease under which the job in hand was last known this consumer's (its batch's claim, or
   * its start confirmed by Redis), or -1: a try of its outcome whose reply is lost is held against it.
   */
  private int ownedUnder = Refusals.NOT_LANDED;
  /** A finished job whose acknowledgement goes with the next call or report. */
  private Delivery pendingAck;
  /** What {@link #ownedUnder} was for the job of {@link #pendingAck}. */
  private int pendingAckOwnedUnder = Refusals.NOT_LANDED;
  /**
   * The pending acknowledgement that a call ran on the master but its replicas did not confirm,
   * and what {@link Refusals#landed} said then: its retry may find it done (see {@link #landingOf}).
   */
  private Delivery landedAck;
  private int landedAckAt = Refusals.NOT_LANDED;
  private boolean unsure;
  /** The last claim left its ready list empty (or the wait timed out): the next claim waits at once. */
  private boolean readyLeftEmpty;
  private final ClaimRotation rotation;
  /** The health of the queue's shards, shared by the worker's consumers and its ack sender. */
  private final ShardHealth health;
  /**
   * Per shard (on a queue of several): a call there failed, or the master changed, so this
   * consumer's in-flight list there may hold jobs it does not have; it gives them back (after its
   * acknowledgements there are sent) before it claims there again, and meanwhile claims elsewhere.
   */
  private final boolean[] owed;
  /** The shard of the batch in hand. */
  private int batchShard;
  /** The shard the worker's {@link ShardWatch} sent this consumer to, until its claim tells it; -1 for none. */
  private int sentTo = -1;
  /** False while a {@link MultiQueueConsumer} makes its non-blocking pass over its queues. */
  private boolean blockWhenIdle = true;
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
    this.settings = settings;
    this.quiet = quiet;
    this.abandon = abandon;
    this.acks = shared.acks().channel(id);
    this.refusals = shared.acks().refusals();
    this.seenMasterEpoch = shared.resync().epoch();
    this.batchMasterEpoch = seenMasterEpoch;
    this.rotation = new ClaimRotation(slot, broker.shards());
    this.health = shared.acks().health();
    this.owed = new boolean[broker.shards()];
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
    return next < batch.size() || unsure;
  }

  /** The jobs of the batch in hand (claimed by its last claim). */
  int batchSize() {
    return batch.size();
  }

  /** Whether a claim that finds nothing due waits with BLMOVE (true, the default) or returns at once. */
  void blockWhenIdle(boolean block) {
    blockWhenIdle = block;
  }

  /**
   * Sends the acknowledgement that would ride on this consumer's next claim with the sender now:
   * its thread moves on to another queue, and this one's next claim may be a while.
   */
  void handOffAck() {
    if (pendingAck != null) {
      acks.report(null, pendingAck, landingOf(pendingAck), pendingAckOwnedUnder);
      pendingAck = null;
    }
  }

  /** As {@link #handOffAck}, unless the acknowledgement in hand is of {@code shard}, where the next call goes. */
  private void handOffAckUnlessIn(int shard) {
    if (pendingAck != null && !pendingAckIn(shard)) {
      handOffAck();
    }
  }

  private boolean pendingAckIn(int shard) {
    return pendingAck != null && broker.keys().shardIndexOf(pendingAck.id()) == shard;
  }

  /** Gives back every claimed job it has not started, uncounted (see {@link MultiQueueConsumer}). */
  void giveBackUnstarted() {
    giveBackAll();
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
        noteUnconfirmedAck(r);
      }
      if (e instanceof ShardFailed f && !quiet.getAsBoolean()) {
        // one shard's call: that shard is held back, and this consumer goes on with the others
        shardFailed(f.shard(), f);
        if (f.ack() != Ack.NONE) {
          acknowledged(pendingAck, f.ack());
          pendingAck = null;
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

  private void step() {
    if (quiet.getAsBoolean()) {
      giveBackAll();
      done = true;
      return;
    }
    if (unsure) {
      giveBackAll();
      unsure = false;
    }
    if (next >= batch.size()) {
      resyncAfterFailover();
      giveBackOwed();
      claim();
      return;
    }
    Claimed job = batch.get(next);
    if (!roomInCrashRecord()) {
      return; // told to be quiet meanwhile: the next step gives the batch back
    }
    if (!commitNext()) {
      return; // its jobs from this one on were handed off to idle consumers
    }
    ownedUnder = batchEpoch; // a start that asks Redis says its own
    if (!nextIsMarked && !start(job)) {
      return;
    }
    next++;
    nextIsMarked = false;
    run(job);
  }

  /**
   * Commits to run the batch's next job, unless another consumer handed it off (with the rest)
   * while this one ran the job before: then the batch is dropped, once that hand-off's call has
   * returned (had it failed, those jobs may still be in this consumer's list: it is unsure, and
   * gives back what it has not started before its next claim). False when handed off.
   */
  private boolean commitNext() {
    HandOffBook.Commit commit = handOffs.commit(batch, next);
    if (commit == HandOffBook.Commit.COMMITTED) {
      return true;
    }
    unsure |= commit == HandOffBook.Commit.UNSURE;
    batch = List.of();
    next = 0;
    return false;
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
   * consumer's thread (its worker's {@link IdleGate} wakes one for it); this consumer starts none
   * of them after this.
   */
  void handOffUnstarted(HandOffBook.Ticket ticket) {
    List<Claimed> rest = handOffs.takeForHandOff(ticket);
    if (rest == null) {
      return;
    }
    boolean sent = false;
    try {
      int n = broker.handOffUnstarted(id, rest.stream().map(Claimed::delivery).toList());
      sent = true;
      log.debug("{}: handed {} claimed job(s) to idle consumers while its handler ran long", id, n);
      if (shared.gate() != null) {
        shared.gate().leftWaiting(n);
      }
    } catch (RuntimeException e) {
      log.warn("{}: could not hand its claimed jobs to idle consumers ({}); it gives them back itself",
          id, e.toString());
    } finally {
      handOffs.sent(sent);
    }
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
    return acks.awaitAtMost(RunningFile.FINISHED_KEPT - 1 - (pendingAck != null ? 1 : 0), quiet);
  }

  /** Confirms the delivery is still this consumer's and marks it running; false when taken back. */
  private boolean start(Claimed job) {
    if (shared.lease().holdsSince(batchEpoch, System.nanoTime())
        && shared.resync().epoch() == batchMasterEpoch) {
      acks.report(job.delivery(), pendingAck, landingOf(pendingAck), pendingAckOwnedUnder);
      pendingAck = null;
      return true;
    }
    int askedUnder = refusals.landed(); // read before the call: a lease renewed after it covers nothing
    int shard = broker.keys().shardIndexOf(job.id());
    if (owed.length > 1) {
      handOffAckUnlessIn(shard); // one call to one shard: a failure there is that shard's alone
    }
    Started s;
    try {
      s = broker.start(id, job.delivery(), pendingAck);
    } catch (JedisException e) {
      if (owed.length == 1 || quiet.getAsBoolean()) {
        throw e;
      }
      noteUnconfirmedAck(e);
      shardFailed(shard, e); // the batch in hand is this shard's: given back when it answers
      return false;
    }
    health.worked(shard);
    acknowledged(pendingAck, s.ack());
    pendingAck = null;
    if (s.started()) {
      ownedUnder = askedUnder;
    } else {
      log.warn("{}: its claimed jobs were taken back (its heartbeat expired while it was stopped, "
          + "paused or cut off, or a Redis failover lost the claim); it runs none of the {} left of "
          + "its batch", id, batch.size() - next);
      batch = List.of();
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
      pendingAck = ackOf(job, ack);
      pendingAckOwnedUnder = ownedUnder;
    } else {
      apply(job, outcome);
    }
  }

  /** The delivery an acknowledgement sends: this one, marked when the job ended cancelled. */
  private static Delivery ackOf(Claimed job, Outcome.Ack ack) {
    return ack.cancelled() ? job.delivery().endedCancelled() : job.delivery();
  }

  private void claim() {
    // read before the claim: a lease that lapses during it must not cover what it claims
    int epoch = shared.lease().epoch();
    boolean leaseHeld = shared.lease().holds(System.nanoTime());
    long masterEpoch = shared.resync().epoch();
    if (readyLeftEmpty && blockWhenIdle) {
      // the last claim left its ready list empty: at a steady rate below what the consumers can
      // take, a claim now would as a rule find nothing, and cost a call (on several shards, with
      // the other shards' lengths beside it) per job. Straight back to the wait, which returns at
      // once when a job came meanwhile (on several shards the watch's, which knows of every
      // shard's jobs); the acknowledgement goes with the sender, which gathers those of all the
      // consumers
      readyLeftEmpty = false;
      handOffAck();
      took(shared.watch() == null ? awaitJobs() : awaitWatch(), epoch, leaseHeld, masterEpoch);
      return;
    }
    int first = firstUsable(rotation.first());
    if (first < 0) {
      // every shard it could claim from is held back: wait as when none has jobs
      handOffAck();
      if (shared.watch() != null) {
        if (sentTo >= 0) {
          shared.watch().looked(sentTo, -1, true); // it will not claim where it was sent
          sentTo = -1;
        }
        took(awaitWatch(), epoch, leaseHeld, masterEpoch);
        return;
      }
      LockSupport.parkNanos((long) (settings.pollSeconds() * 1e9));
      took(List.of(), epoch, leaseHeld, masterEpoch);
      return;
    }
    handOffAckUnlessIn(first); // it cannot ride on a claim in another shard's slot
    Batch claimed = broker.claimReady(id, settings.heartbeatTtlMs(), settings.prefetch(),
        pendingAck, first, rotation.tries(), this::mayClaimFrom, atLeast());
    if (owed.length > 1) {
      health.worked(first);
      health.worked(claimed.shard());
    }
    rotation.claimed(claimed.shard(), !claimed.jobs().isEmpty());
    batchShard = claimed.shard();
    readyLeftEmpty = !claimed.jobs().isEmpty() && claimed.left() == 0;
    if (shared.gate() != null && !claimed.jobs().isEmpty()) {
      shared.gate().leftWaiting(claimed.left()); // what it left, for idle consumers
    }
    if (shared.watch() != null) {
      tellWatch(first, claimed);
    }
    acknowledged(pendingAck, claimed.ack());
    pendingAck = null;
    for (String dropped : claimed.dropped()) {
      droppedWithoutRecord(dropped);
    }
    List<Claimed> jobs = claimed.jobs();
    if (jobs.isEmpty() && claimed.dropped().isEmpty() && blockWhenIdle) {
      jobs = shared.watch() != null ? awaitWatch() : awaitJobs();
    }
    took(jobs, epoch, leaseHeld, masterEpoch);
  }

  /**
   * Blocks on its home shard until a job comes (BLMOVE), and takes it with the rest of a fair share
   * of what waits then (at least its pace's); notes whether that left ready empty. With its
   * worker's {@link IdleGate}, only when it is its turn to block; otherwise it parks until woken
   * to claim (or the poll timeout), and its next claim does not block.
   */
  private List<Claimed> awaitJobs() {
    IdleGate gate = shared.gate();
    if (gate != null) {
      IdleGate.Turn turn = gate.awaitTurn((long) (settings.pollSeconds() * 1e9));
      if (turn.handOff() != null) {
        turn.handOff().run(); // another consumer's jobs, behind its slow handler: this one claims next
      }
      if (!turn.block()) {
        return List.of();
      }
      if (quiet.getAsBoolean()) {
        gate.woke(0); // to be quiet: no wait in Redis now (the next step gives back and is done)
        return List.of();
      }
    }
    Woken woken = null;
    try {
      woken = broker.claimWoken(id, settings.pollSeconds(), settings.heartbeatTtlMs(),
          rotation.home(), settings.prefetch(), atLeast());
    } finally {
      if (gate != null) {
        gate.woke(woken == null ? -1 : woken.left());
      }
    }
    return woke(rotation.home(), woken);
  }

  /** What a blocking wait on {@code shard} brought: its jobs; notes whether it left ready empty. */
  private List<Claimed> woke(int shard, Woken woken) {
    rotation.waitedOn(shard);
    batchShard = shard;
    for (String dropped : woken.dropped()) {
      droppedWithoutRecord(dropped);
    }
    readyLeftEmpty = woken.left() == 0;
    return woken.jobs();
  }

  /**
   * The fewest jobs a claim takes when they wait: the worker's pace, where its {@link IdleGate}
   * hands off what waits behind a slow handler; 1 (the fair share alone) elsewhere.
   */
  private int atLeast() {
    return shared.pace() != null ? shared.pace().atLeast() : 1;
  }

  /** Whether a claim may look at {@code shard}: nothing to give back there, it is not held back, its master does not hang. */
  private boolean mayClaimFrom(int shard) {
    return !owed[shard] && !health.failing(shard) && !broker.shardHangs(shard);
  }

  /**
   * {@code shard}, or the first after it that a claim may go to; a held-back shard only when its
   * retry is due (this claim then tries it). -1 when there is none.
   */
  private int firstUsable(int shard) {
    if (owed.length == 1) {
      return shard;
    }
    for (int i = 0; i < owed.length; i++) {
      int s = (shard + i) % owed.length;
      // (a shard whose master hangs is passed over: a claim there would wait for it, and its
      // watcher sends a consumer once it answers)
      if (!owed[s] && !broker.shardHangs(s) && health.mayCall(s)) {
        return s;
      }
    }
    return -1;
  }

  /**
   * A call to {@code shard} failed: that shard is held back (its health), and what this consumer
   * claimed there is given back once it answers again; the consumer goes on with the others.
   */
  private void shardFailed(int shard, RuntimeException e) {
    health.failed(shard, e);
    owed[shard] = true;
    if (batchShard == shard && next < batch.size()) {
      batch = List.of();
      next = 0;
    }
    rotation.claimed(shard, true); // the next claim starts at the shard after it
  }

  /**
   * Gives back, shard by shard, what this consumer's in-flight lists hold in the shards it owes
   * (see {@link #owed}), each once its acknowledgements there are sent and the shard answers; a
   * shard that fails stays owed, and the others go on.
   */
  private void giveBackOwed() {
    for (int s = 0; s < owed.length; s++) {
      if (!owed[s]) {
        continue;
      }
      if (health.failing(s) && (acks.unsent(s) > 0 || !health.mayCall(s))) {
        continue; // its acknowledgements are held back, or its retry is not due yet
      }
      try {
        if (!acks.flush(s, System.nanoTime() + FLUSH_BEFORE_GIVING_BACK_NANOS)) {
          continue;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      Delivery ack = pendingAckIn(s) ? pendingAck : null;
      Released r;
      try {
        r = broker.releaseClaimed(id, s, ack);
      } catch (JedisException e) {
        noteUnconfirmedAck(e);
        health.failed(s, e);
        continue;
      }
      health.worked(s);
      owed[s] = false;
      if (ack != null) {
        acknowledged(ack, r.ack());
        pendingAck = null;
      }
      if (r.released() > 0) {
        log.info("{}: gave back {} claimed job(s) of shard {} it had not started, uncounted", id, r.released(), s);
      }
    }
  }

  private void took(List<Claimed> jobs, int epoch, boolean leaseHeld, long masterEpoch) {
    batch = jobs;
    next = 0;
    nextIsMarked = !jobs.isEmpty();
    batchEpoch = leaseHeld ? epoch : -1;
    batchMasterEpoch = masterEpoch;
  }

  /**
   * Idle on a queue of several shards: waits up to the poll timeout for the watch to send it to a
   * shard with jobs, which its next claim tries first (nothing claimed here), or to let it block
   * on a shard itself (what that wait claimed).
   */
  private List<Claimed> awaitWatch() {
    ShardWatch.Turn turn;
    try {
      turn = shared.watch().await((long) (settings.pollSeconds() * 1e9));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    }
    if (turn.block()) {
      return awaitJobsIn(turn.shard());
    }
    if (turn.shard() < 0) {
      rotation.waited();
    } else {
      rotation.sentTo(turn.shard());
      sentTo = turn.shard();
    }
    return List.of();
  }

  /**
   * Blocks on {@code shard}, where the watch let it wait in Redis itself (as {@link #awaitJobs}
   * on one shard), and tells the watch what its claim there left when the wait ends.
   */
  private List<Claimed> awaitJobsIn(int shard) {
    if (owed[shard]) {
      shared.watch().unblocked(shard, -1); // what it holds there goes back first (giveBackOwed)
      return List.of();
    }
    Woken woken = null;
    try {
      woken = broker.claimWoken(id, settings.pollSeconds(), settings.heartbeatTtlMs(), shard, settings.prefetch());
    } finally {
      shared.watch().unblocked(shard, woken == null ? -1 : woken.left());
    }
    health.worked(shard);
    return woke(shard, woken);
  }

  /**
   * Tells the worker's watch what a claim that tried {@code first} saw: that shard had nothing
   * when the batch came from another, and the batch's shard kept {@link Batch#left()}.
   * A shard it was sent to and did not claim from (held back meanwhile) is to be looked at again.
   */
  private void tellWatch(int first, Batch claimed) {
    ShardWatch watch = shared.watch();
    if (first != claimed.shard()) {
      watch.looked(first, 0, sentTo == first);
    }
    watch.looked(claimed.shard(), claimed.left(), sentTo == claimed.shard());
    if (sentTo >= 0 && sentTo != first && sentTo != claimed.shard()) {
      watch.looked(sentTo, -1, true);
    }
    sentTo = -1;
  }

  /**
   * Between two batches, holding no job: when the Redis master changed since this consumer last
   * looked, gives back what its list still holds on the new master (see {@link FailoverResync}).
   * When its acknowledgements could not be sent yet, it looks again before the next claim.
   */
  private void resyncAfterFailover() {
    long epoch = shared.resync().epoch();
    if (epoch == seenMasterEpoch) {
      return;
    }
    if (owed.length > 1) {
      // shard by shard, each after its own acknowledgements: a shard whose new master does not
      // answer yet holds back only its own give-back
      Arrays.fill(owed, true);
      seenMasterEpoch = epoch;
      return;
    }
    Optional<Released> r;
    try {
      r = shared.resync().giveBack(id, acks, pendingAck);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (r.isPresent()) {
      acknowledged(pendingAck, r.get().ack());
      pendingAck = null;
      seenMasterEpoch = epoch;
    }
  }

  /**
   * Acknowledges the finished job and gives back every other claimed one, none of them started.
   * The acknowledgements on their way go first, or their jobs would be given back and run twice:
   * while they cannot be sent (Redis, or a cluster's failed master, not answering yet) nothing is
   * given back and the consumer stays unsure, to try again after its backoff. Only at shutdown
   * does it give back anyway (the drain must end; its worker's exit takes back what remains).
   */
  private void giveBackAll() {
    if (owed.length > 1 && !quiet.getAsBoolean()) {
      Arrays.fill(owed, true);
      batch = List.of();
      next = 0;
      giveBackOwed();
      return;
    }
    boolean sent = false;
    try {
      sent = acks.flush(System.nanoTime() + FLUSH_BEFORE_GIVING_BACK_NANOS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!sent && !quiet.getAsBoolean()) {
      throw new JedisConnectionException(id + ": its acknowledgements are not sent yet; its claimed "
          + "jobs are given back once they are");
    }
    Released r = broker.releaseClaimed(id, pendingAck);
    acknowledged(pendingAck, r.ack());
    pendingAck = null;
    batch = List.of();
    next = 0;
    if (r.released() > 0) {
      log.info("{}: gave back {} claimed job(s) it had not started, uncounted", id, r.released());
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

  private void acknowledged(Delivery delivery, Ack ack) {
    if (ack.refused()) {
      refusals.ackRefused(id, delivery, ack, landingOf(delivery));
    }
  }

  /**
   * A call that held the pending acknowledgement failed with {@code e}: when it ran and acknowledged
   * it on the master, unconfirmed by its replicas, or its reply was lost (it may have, if the job
   * was still this consumer's: held against the lease it was last known so under), the retry (the
   * next call that holds it, or the sender) may find the job done by it.
   */
  private void noteUnconfirmedAck(RuntimeException e) {
    if (pendingAck != null && RedisBroker.unconfirmedAck(e) == Ack.ACKED) {
      landedAck = pendingAck;
      landedAckAt = refusals.landed();
    } else if (pendingAck != null && pendingAck != landedAck && RedisErrors.isReplyLost(e)) {
      landedAck = pendingAck;
      landedAckAt = pendingAckOwnedUnder;
    }
  }

  /** What {@link Refusals#landed} said when a call acknowledged {@code delivery} unconfirmed, if one did. */
  private int landingOf(Delivery delivery) {
    return delivery != null && delivery == landedAck ? landedAckAt : Refusals.NOT_LANDED;
  }

  private void droppedWithoutRecord(String jobId) {
    log.error("{}: job {} was in ready without a record (an invariant breach); dropped", id,
        LogText.escape(jobId));
    shared.stats().also("?", StatsRecorder.Event.DEAD);
  }
}
