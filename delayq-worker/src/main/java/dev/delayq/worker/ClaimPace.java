package dev.delayq.worker;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How many of the due jobs a consumer of a worker takes at least in one claim, from how fast the
 * worker's handlers of the queue have run: as many as run one after the other within
 * {@link #BUDGET_NANOS} (at least 1, at most {@link #MOST} and the prefetch), whatever the fair
 * share of the backlog. Waking another consumer for a job costs a Redis call and a thread switch,
 * far more than a quick handler. One pace for all the consumers of a worker's queue (they run the
 * same handlers), so a consumer that has run little lately claims as the busy ones do.
 *
 * <p>A job slower than the pace sets it at once, so consumers of slow handlers take their fair
 * share and no more; quick jobs lower it an eighth of the way at a time. One per queue of a worker
 * (of one shard or several, alone or beside other queues), whose idle consumers, in its
 * {@link IdleGate} or {@link ShardWatch}, hand the jobs claimed behind a handler that turns out
 * slow to the idle consumers ({@link HandOffRouter}). Any thread.
 */
final class ClaimPace {
  /** The handler time a batch taken beyond its fair share may add up to. */
  static final long BUDGET_NANOS = 1_000_000L;
  /** The most a consumer takes beyond its fair share. */
  static final int MOST = 16;

  private final int most;
  /** A job's handler time, as the pace knows it; unknown at first, so one job a claim. */
  private final AtomicLong perJobNanos = new AtomicLong(BUDGET_NANOS);

  ClaimPace(int prefetch) {
    this.most = Math.max(1, Math.min(MOST, prefetch));
  }

  /** A handler ran for {@code nanos}. */
  void ran(long nanos) {
    perJobNanos.updateAndGet(known -> {
      long gap = known - nanos;
      return gap < 8 ? nanos : known - gap / 8;
    });
  }

  /** The fewest jobs the next claim takes when that many wait. */
  int atLeast() {
    return (int) Math.max(1, Math.min(most, BUDGET_NANOS / Math.max(1, perJobNanos.get())));
  }
}
