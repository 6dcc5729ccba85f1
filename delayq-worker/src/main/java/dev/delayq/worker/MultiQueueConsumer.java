package dev.delayq.worker;

import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * One consumer thread of a worker that serves several queues: it holds a {@link Consumer} per
 * queue (each with its in-flight list in its own queue's slot) and decides which of them claims
 * next. It runs the batch in hand to its end, then asks its {@link QueuePicker} for the order of
 * the queues and claims, without blocking, from the first that has due jobs. When none has, it
 * waits for its home queue alone, as a consumer of that queue alone would: in the queue's
 * {@link IdleGate} (one of the consumers whose home it is blocks with BLMOVE, the others park, and
 * one woken to claim makes its pass over the queues again) or, on a queue of several shards, in its
 * {@link ShardWatch}; the other queues are then served by the consumers whose home they are, and by
 * this one's next pass, at the latest after {@code worker.pollTimeout}: one pass over the queues,
 * then a wait, never a poll loop. Its claims in each queue take at least that queue's
 * {@link ClaimPace}, and while it idles it may run the hand-off of another consumer's jobs claimed
 * behind a slow handler ({@link HandOffRouter}).
 *
 * <p>In strict order a job that the BLMOVE on a later home queue brought goes back unstarted when an
 * earlier queue has due jobs by then, so no job of a later queue starts while an earlier one has
 * due jobs in {@code ready}.
 *
 * <p>The acknowledgement of a batch's last job rides on its queue's next claim; when the thread
 * moves to another queue it goes with the sender instead, so no finished job waits on a queue
 * that is not picked for a while.
 */
final class MultiQueueConsumer {
  private final List<Consumer> lanes;
  private final QueuePicker picker;
  private final BooleanSupplier quiet;
  private Consumer current;
  /** The next claim tries every queue (false after a pass that found nothing: then block at home). */
  private boolean scan = true;
  private volatile boolean done;

  /** {@code lanes}: this thread's consumer in each queue, in the picker's order. */
  MultiQueueConsumer(List<Consumer> lanes, QueuePicker picker, BooleanSupplier quiet) {
    this.lanes = List.copyOf(lanes);
    this.picker = picker;
    this.quiet = quiet;
  }

  boolean isDone() {
    return done;
  }

  /** True when its thread is lost in a handler that ignored its interruption. */
  boolean isStuck() {
    return lanes.stream().anyMatch(Consumer::isStuck);
  }

  /** One step: a job of the batch in hand, or a claim. */
  long pass() {
    if (quiet.getAsBoolean()) {
      boolean all = true;
      for (Consumer c : lanes) {
        if (!c.isDone()) {
          c.pass();  // quiet: finishes nothing new, gives back what it holds, and is done
        }
        all &= c.isDone();
      }
      done = all;
      return 0;
    }
    if (current != null && current.holdsJobs()) {
      current.pass();
      return 0;
    }
    if (scan) {
      for (int q : picker.order()) {
        if (claimFrom(q, false)) {
          return 0;
        }
      }
      scan = false;
    }
    claimFrom(picker.home(), true);
    scan = true;
    if (picker.strict() && current.holdsJobs()) {
      yieldToEarlierQueue(picker.home());
    }
    return 0;
  }

  /**
   * Strict order: the BLMOVE on a later home queue brought a job, but an earlier queue may have
   * had due jobs meanwhile (its waiters busy). Then the job goes back unstarted, uncounted, and
   * the earlier queue's claim runs instead.
   */
  private void yieldToEarlierQueue(int home) {
    Consumer homeLane = current;
    for (int q = 0; q < home; q++) {
      Consumer earlier = lanes.get(q);
      earlier.blockWhenIdle(false);
      earlier.pass();
      if (earlier.holdsJobs()) {
        homeLane.giveBackUnstarted();
        current = earlier;
        return;
      }
    }
  }

  /** Claims from queue {@code q} (its consumer holds no job now); true when it got some. */
  private boolean claimFrom(int q, boolean block) {
    Consumer c = lanes.get(q);
    if (current != null && current != c) {
      current.handOffAck();
    }
    current = c;
    c.blockWhenIdle(block);
    c.pass();
    int got = c.batchSize();
    if (got == 0) {
      picker.foundEmpty(q);
    } else {
      picker.claimed(q, got);
    }
    return c.holdsJobs();
  }

  /** The delivery whose handler runs now in queue {@code q}, if any. */
  Optional<String> runningNow(int q) {
    return lanes.get(q).runningNow();
  }
}
