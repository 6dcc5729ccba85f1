package dev.delayq.worker;

import java.util.Arrays;
import java.util.List;

/**
 * In which order a consumer of several queues tries them for its next claim. By weight it is a
 * smooth weighted round robin counted in jobs: each queue earns its weight per job claimed
 * anywhere, the one with the most credit goes first (then the next, and so on: a queue with
 * nothing due hands its turn to the others in proportion), and the queue that served a claim of k
 * jobs pays what all earned. While every queue has due jobs, each gets its weight's
 * share of the starts, interleaved (6/3/1: c d c l c d c c d c ...), and none starves. Strictly,
 * it is the configured order. A queue found with nothing due earns nothing meanwhile. State of
 * one consumer's thread.
 *
 * <p>Its home queue (its place among its worker's consumers, modulo the queue count) is where it
 * blocks when no queue has due jobs, so the idle consumers wait spread over the queues, as over
 * the shards of one queue; the consumers start at different points of the round, too.
 */
final class QueuePicker {
  private final long[] weights;
  private final boolean strict;
  private final int home;
  private final long[] credit;
  /** The queues found with nothing due since the last claim that was served. */
  private final boolean[] empty;

  /** The picker of the {@code slot}-th consumer (from 0), {@code weights} in the queues' order. */
  QueuePicker(List<Integer> weights, boolean strict, int slot) {
    if (weights.isEmpty()) {
      throw new IllegalArgumentException("a picker needs at least one queue");
    }
    this.weights = weights.stream().mapToLong(Integer::longValue).toArray();
    long total = Arrays.stream(this.weights).sum();
    this.strict = strict;
    this.home = Math.floorMod(slot, this.weights.length);
    this.credit = new long[this.weights.length];
    this.empty = new boolean[this.weights.length];
    for (int i = 0; i < slot % total; i++) {
      claimed(order()[0], 1);
    }
  }

  int home() {
    return home;
  }

  boolean strict() {
    return strict;
  }

  /** The queues (their indexes) in the order the next claim tries them; each exactly once. */
  int[] order() {
    int n = weights.length;
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    if (!strict) {
      // the credit after this claim's earnings decides; ties go to the earlier queue
      Arrays.sort(order, (a, b) -> Long.compare(credit[b] + weights[b], credit[a] + weights[a]));
    }
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = order[i];
    }
    return out;
  }

  /** Queue {@code queue} had nothing due for a claim: it earns nothing until a claim is served. */
  void foundEmpty(int queue) {
    empty[queue] = true;
  }

  /**
   * A claim took {@code jobs} jobs from queue {@code queue}: every queue not just found empty
   * earns its weight per job, and that one pays what they earned together. So the credits sum to
   * zero: a queue with nothing due does not hoard credit to flood the others with later.
   */
  void claimed(int queue, int jobs) {
    if (strict || jobs <= 0) {
      Arrays.fill(empty, false);
      return;
    }
    long earned = 0;
    for (int i = 0; i < credit.length; i++) {
      if (!empty[i] || i == queue) {
        credit[i] += weights[i] * jobs;
        earned += weights[i] * jobs;
      }
    }
    credit[queue] -= earned;
    Arrays.fill(empty, false);
  }
}
