package dev.delayq.worker;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the idle consumers of a worker on a queue of one shard from all waiting in Redis: one at
 * a time blocks in BLMOVE, the others park here (on a worker of several queues, each queue has its
 * gate, which the consumers whose home that queue is wait in). Redis hands a pushed id to each blocked client,
 * one id each, so eight consumers blocked on ready turn a forward of a dozen due ids into eight
 * wake-ups and eight claims; one blocked consumer takes them in its claim (see {@link ClaimPace})
 * while the others sleep on.
 *
 * <p>When the blocked consumer wakes it frees its turn, which a parked one takes at once; when a
 * claim left jobs in ready (or cannot tell), as many parked consumers as could take them are woken
 * to claim, so slow handlers still run side by side. And when a consumer's handler runs past
 * {@link #HAND_OFF_AFTER_NANOS} while it holds claimed jobs it has not started, a parked consumer
 * is woken to give those back to ready for the idle ones ({@link Consumer#handOffTicket}), so no
 * job waits behind a slow one while consumers sit idle (with none parked but one blocking, the
 * {@link HandOffRouter}'s own thread gives them back, which wakes the blocked one). A parked
 * consumer looks for itself at least every poll timeout.
 */
final class IdleGate {
  /** How long a handler runs before the jobs claimed behind it are handed to idle consumers. */
  static final long HAND_OFF_AFTER_NANOS = 10_000_000L;

  /** What a consumer that asked for its turn is to do. */
  record Turn(boolean block, Runnable handOff) {
    static final Turn BLOCK = new Turn(true, null);
    static final Turn CLAIM = new Turn(false, null);
  }

  /** Consumers blocking in Redis now: 0 or 1. */
  private int blocking;
  private int parked;
  /** Parked consumers woken to claim and not gone yet. */
  private int toClaim;
  /** Hand-offs asked for: each is done by a parked consumer, on its thread. */
  private final ArrayDeque<Runnable> handOffs = new ArrayDeque<>();

  /**
   * An idle consumer's turn: {@link Turn#block()} when it is to block in Redis (and then call
   * {@link #woke} once that wait ends); otherwise it is to claim without blocking, after running
   * {@link Turn#handOff()} when there is one: it was woken to, or waited {@code timeoutNanos}, or
   * was interrupted.
   */
  synchronized Turn awaitTurn(long timeoutNanos) {
    if (handOffs.isEmpty() && blocking == 0) {
      blocking++;
      return Turn.BLOCK;
    }
    parked++;
    try {
      long deadline = System.nanoTime() + timeoutNanos;
      while (true) {
        if (!handOffs.isEmpty()) {
          return new Turn(false, handOffs.poll());
        }
        if (toClaim > 0) {
          toClaim--;
          return Turn.CLAIM;
        }
        if (blocking == 0) {
          blocking++;
          return Turn.BLOCK;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return Turn.CLAIM;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Turn.CLAIM;
    } finally {
      parked--;
      toClaim = Math.min(toClaim, parked);
    }
  }

  /**
   * The wait in Redis of a consumer that {@link #awaitTurn} let block has ended; its claim left
   * {@code left} jobs in ready (-1: it cannot tell), which as many parked consumers are woken to claim.
   */
  synchronized void woke(long left) {
    blocking--;
    wake(1, left);
  }

  /** A claim left {@code left} jobs in ready (-1: it cannot tell): as many parked consumers are woken to claim. */
  synchronized void leftWaiting(long left) {
    wake(0, left);
  }

  /**
   * Asks a parked consumer to run {@code handOff} (a consumer's {@link Consumer#handOffUnstarted});
   * false, and nothing asked, when none is parked (none that is not asked to run one already).
   */
  synchronized boolean handOff(Runnable handOff) {
    if (parked > handOffs.size()) {
      handOffs.add(handOff);
      notify();
      return true;
    }
    return false;
  }

  private void wake(int turns, long left) {
    int wake = turns;
    if (left != 0) {
      int claimers = (int) Math.min(parked, left < 0 ? parked : left);
      wake += Math.max(0, claimers - toClaim);
      toClaim = Math.max(toClaim, claimers);
    }
    // (one notify a consumer needed, not notifyAll: a forward of quick jobs wakes one parked thread)
    for (int i = Math.min(wake, parked); i > 0; i--) {
      notify();
    }
  }

  /** Wakes every parked consumer to claim (its worker drains: each then sees it is to be quiet). */
  synchronized void wakeAll() {
    toClaim = parked;
    notifyAll();
  }

  /** Consumers parked now. */
  synchronized int parked() {
    return parked;
  }

  /** Consumers blocking in Redis now. */
  synchronized int blocking() {
    return blocking;
  }
}
