package dev.delayq.worker;

/**
 * Where a consumer's next claim looks on a queue of several shards: which shard it tries first,
 * and how many it tries. State of one consumer's thread, read and written by that thread only.
 *
 * <p>The consumer has a home shard (its place among its worker's consumers, modulo the shard
 * count). In a worker, a consumer that finds nothing waits for the worker's {@link ShardWatch},
 * which sends it to a shard with jobs ({@link #sentTo}); one driven without a watch blocks on its
 * home shard, so such consumers wait spread over the shards. A claim scans every
 * shard in turn, from the one after the shard that served it last, and takes its batch from the
 * first that has due jobs: a busy shard cannot starve the others, and a shard whose waiters are
 * busy is still served. After a wait, the scan starts at the home shard, where the job the wait
 * brought came from, and after the watch sent it somewhere, at that shard. Only when its last
 * claim came back empty does it try its home shard alone before it waits again: an idle consumer
 * makes one pass over the shards, then waits; it never polls them in a loop.
 */
final class ClaimRotation {
  private final int shards;
  private final int home;
  /** The shard the next scan tries first. */
  private int nextShard;
  /** The next claim tries every shard (false after a claim that found nothing: then the home shard). */
  private boolean scan = true;

  /** The rotation of the {@code slot}-th consumer (from 0) of a worker, on {@code shards} shards. */
  ClaimRotation(int slot, int shards) {
    if (shards < 1) {
      throw new IllegalArgumentException("shards must be at least 1, got " + shards);
    }
    this.shards = shards;
    this.home = Math.floorMod(slot, shards);
  }

  /** The shard this consumer blocks on when no shard has due jobs. */
  int home() {
    return home;
  }

  /** The shard the next non-blocking claim tries first. */
  int first() {
    return scan ? Math.floorMod(nextShard, shards) : home;
  }

  /** How many shards the next non-blocking claim tries, from {@link #first()} on. */
  int tries() {
    return scan ? shards : 1;
  }

  /** A non-blocking claim answered from {@code shard}; {@code found} when it brought jobs. */
  void claimed(int shard, boolean found) {
    nextShard = shard + 1;
    scan = found;
  }

  /** The worker's {@link ShardWatch} sent this idle consumer to {@code shard}: the next claim scans from there. */
  void sentTo(int shard) {
    nextShard = shard;
    scan = true;
  }

  /**
   * A blocking wait on the home shard ended (with a job or not): the next claim scans again, from
   * the home shard, so that the acknowledgement of the job the wait brought rides on it.
   */
  void waited() {
    nextShard = home;
    scan = true;
  }
}
