package dev.delayq.worker;

import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.LogText;
import dev.delayq.process.ShardHealth;
import dev.delayq.redis.Batch;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.Woken;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where and when a consumer claims: it claims due jobs into its in-flight list (a fair share of the
 * backlog in one call; when nothing waits, it blocks with BLMOVE and the job that wakes it comes
 * with the rest of a fair share of what waits then). When a claim left ready empty (its answer
 * says what it left), its next claim is that wait again, not a claim that would as a rule find
 * nothing: at a steady rate the consumers keep up with, a job costs the wait and its claim.
 *
 * <p>On a queue of several shards it claims from one shard at a time: its {@link ClaimRotation}
 * says which shards a claim tries first, passing over those it owes a give-back ({@link GiveBack})
 * or that are held back ({@link ShardHealth}). When none has due jobs it waits for its worker's
 * {@link ShardWatch}, which sends it to a shard with jobs, or lets it block on a shard that no
 * other consumer of the worker blocks on (as on one shard) while that leaves a consumer idle for
 * the shards nobody blocks on.
 *
 * <p>State of one consumer's thread, read and written by that thread only; the {@link IdleGate},
 * {@link ShardWatch} and {@link ClaimPace} it shares with its worker's other consumers are theirs
 * to guard.
 */
final class ClaimScheduler {
  /** Its lines log as the consumer's, as they did when this was part of it: a log setting for it still applies. */
  private static final Logger log = LoggerFactory.getLogger(Consumer.class);

  private final String id;
  private final RedisBroker broker;
  private final Consumer.Settings settings;
  private final Consumer.Shared shared;
  private final BooleanSupplier quiet;
  private final PendingAck pending;
  private final ClaimedBatch batch;
  private final GiveBack giveBack;
  private final ClaimRotation rotation;
  /** The health of the queue's shards, shared by the worker's consumers and its ack sender. */
  private final ShardHealth health;
  private final int shards;
  /** The last claim left its ready list empty (or the wait timed out): the next claim waits at once. */
  private boolean readyLeftEmpty;
  /** The shard the worker's {@link ShardWatch} sent this consumer to, until its claim tells it; -1 for none. */
  private int sentTo = -1;
  /** False while a {@link MultiQueueConsumer} makes its non-blocking pass over its queues. */
  private boolean blockWhenIdle = true;

  ClaimScheduler(String id, Consumer.Shared shared, Consumer.Settings settings, BooleanSupplier quiet,
      PendingAck pending, ClaimedBatch batch, GiveBack giveBack, ClaimRotation rotation) {
    this.id = id;
    this.broker = shared.broker();
    this.settings = settings;
    this.shared = shared;
    this.quiet = quiet;
    this.pending = pending;
    this.batch = batch;
    this.giveBack = giveBack;
    this.rotation = rotation;
    this.health = shared.acks().health();
    this.shards = broker.shards();
  }

  /** Whether a claim that finds nothing due waits with BLMOVE (true, the default) or returns at once. */
  void blockWhenIdle(boolean block) {
    blockWhenIdle = block;
  }

  /** Claims the next batch (what may be none), with the acknowledgement in hand riding on the call. */
  void claim() {
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
      pending.handOff();
      batch.took(shared.watch() == null ? awaitJobs() : awaitWatch(), epoch, leaseHeld, masterEpoch);
      return;
    }
    int first = firstUsable(rotation.first());
    if (first < 0) {
      // every shard it could claim from is held back: wait as when none has jobs
      pending.handOff();
      if (shared.watch() != null) {
        if (sentTo >= 0) {
          shared.watch().looked(sentTo, -1, true); // it will not claim where it was sent
          sentTo = -1;
        }
        batch.took(awaitWatch(), epoch, leaseHeld, masterEpoch);
        return;
      }
      LockSupport.parkNanos((long) (settings.pollSeconds() * 1e9));
      batch.took(List.of(), epoch, leaseHeld, masterEpoch);
      return;
    }
    pending.handOffUnlessIn(first); // it cannot ride on a claim in another shard's slot
    Batch claimed = broker.claims().claimReady(id, settings.heartbeatTtlMs(), settings.prefetch(),
        pending.get(), first, rotation.tries(), this::mayClaimFrom, atLeast());
    if (shards > 1) {
      health.worked(first);
      health.worked(claimed.shard());
    }
    rotation.claimed(claimed.shard(), !claimed.jobs().isEmpty());
    batch.shard = claimed.shard();
    readyLeftEmpty = !claimed.jobs().isEmpty() && claimed.left() == 0;
    if (shared.gate() != null && !claimed.jobs().isEmpty()) {
      shared.gate().leftWaiting(claimed.left()); // what it left, for idle consumers
    }
    if (shared.watch() != null) {
      tellWatch(first, claimed);
    }
    pending.answered(claimed.ack());
    for (String dropped : claimed.dropped()) {
      droppedWithoutRecord(dropped);
    }
    List<Claimed> jobs = claimed.jobs();
    if (jobs.isEmpty() && claimed.dropped().isEmpty() && blockWhenIdle) {
      jobs = shared.watch() != null ? awaitWatch() : awaitJobs();
    }
    batch.took(jobs, epoch, leaseHeld, masterEpoch);
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
      woken = broker.claims().claimWoken(id, settings.pollSeconds(), settings.heartbeatTtlMs(),
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
    batch.shard = shard;
    for (String dropped : woken.dropped()) {
      droppedWithoutRecord(dropped);
    }
    readyLeftEmpty = woken.left() == 0;
    return woken.jobs();
  }

  /**
   * The fewest jobs a claim takes when they wait: its queue's pace in the worker, whose idle
   * consumers (in its {@link IdleGate} or {@link ShardWatch}) hand off what waits behind a slow
   * handler; 1 (the fair share alone) without one.
   */
  private int atLeast() {
    return shared.pace() != null ? shared.pace().atLeast() : 1;
  }

  /** Whether a claim may look at {@code shard}: nothing to give back there, it is not held back, its master does not hang. */
  boolean mayClaimFrom(int shard) {
    return !giveBack.owes(shard) && !health.failing(shard) && !broker.claims().shardHangs(shard);
  }

  /**
   * {@code shard}, or the first after it that a claim may go to; a held-back shard only when its
   * retry is due (this claim then tries it). -1 when there is none.
   */
  private int firstUsable(int shard) {
    if (shards == 1) {
      return shard;
    }
    for (int i = 0; i < shards; i++) {
      int s = (shard + i) % shards;
      // (a shard whose master hangs is passed over: a claim there would wait for it, and its
      // watcher sends a consumer once it answers)
      if (!giveBack.owes(s) && !broker.claims().shardHangs(s) && health.mayCall(s)) {
        return s;
      }
    }
    return -1;
  }

  /**
   * Idle on a queue of several shards: waits up to the poll timeout for the watch to send it to a
   * shard with jobs, which its next claim tries first (nothing claimed here), or to let it block
   * on a shard itself (what that wait claimed).
   */
  private List<Claimed> awaitWatch() {
    ShardWatch.Turn turn;
    long deadline = System.nanoTime() + (long) (settings.pollSeconds() * 1e9);
    try {
      turn = shared.watch().await(deadline - System.nanoTime());
      while (turn.handOff() != null) {
        // another consumer's jobs, behind its slow handler: given back to their shard's ready,
        // which the watch then sends idle consumers to (this one among them)
        turn.handOff().run();
        turn = shared.watch().await(deadline - System.nanoTime());
      }
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
    if (giveBack.owes(shard)) {
      shared.watch().unblocked(shard, -1); // what it holds there goes back first (giveBackOwed)
      return List.of();
    }
    Woken woken = null;
    try {
      woken = broker.claims().claimWoken(id, settings.pollSeconds(), settings.heartbeatTtlMs(), shard,
          settings.prefetch(), atLeast());
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

  private void droppedWithoutRecord(String jobId) {
    log.error("{}: job {} was in ready without a record (an invariant breach); dropped", id,
        LogText.escape(jobId));
    shared.stats().also("?", StatsRecorder.Event.DEAD);
  }
}
