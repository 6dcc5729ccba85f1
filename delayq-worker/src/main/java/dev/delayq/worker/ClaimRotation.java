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
 * brought came from; after the watch sent it somewhere, the claim tries that shard alone. Only when its last
 * claim came back empty does it try its home shard alone before it waits again: an idle consumer
 * makes one pass over the shards, then waits; it never polls them in a loop.
 */
final class ClaimRotation {
  private final int shards;
  private final int home;
  /** The shard the next claim tries first. */
  private int nextShard;
  /**
   * How many shards the next claim tries, from {@link #nextShard} on: all of them, or one (after
   * a claim that found nothing: the home shard; after the watch sent it: that shard).
   */
  private int tries;

  /** The rotation of the {@code slot}-th consumer (from 0) of a worker, on {@code shards} shards. */
  ClaimRotation(int slot, int shards) {
    if (shards < 1) {
      throw new IllegalArgumentException("shards must be at least 1, got " + shards);
    }
    this.shards = shards;
    this.home = Math.floorMod(slot, shards);
    this.tries = shards;
  }

  /** The shard this consumer blocks on when no shard has due jobs. */
  int home() {
    return home;
  }

  /** The shard the next non-blocking claim tries first. */
  int first() {
    return Math.floorMod(nextShard, shards);
  }

  /** How many shards the next non-blocking claim tries, from {@link #first()} on. */
  int tries() {
    return tries;
  }

  /** A non-blocking claim answered from {@code shard}; {@code found} when it brought jobs. */
  void claimed(int shard, boolean found) {
    nextShard = found ? shard + 1 : home;
    tries = found ? shards : 1;
  }

  /**
   * The worker's {@link ShardWatch} sent this idle consumer to {@code shard}, where it saw jobs:
   * the next claim tries that shard alone (one call to one master, no other shard's length beside
   * it); should another consumer have been quicker, the watch knows where the rest are.
   */
  void sentTo(int shard) {
    nextShard = shard;
    tries = 1;
  }

  /**
   * A blocking wait on the home shard ended (with a job or not): the next claim scans again, from
   * the home shard, so that the acknowledgement of the job the wait brought rides on it.
   */
  void waited() {
    waitedOn(home);
  }

  /** As {@link #waited}, for a blocking wait on {@code shard} (one its worker's watch let it take). */
  void waitedOn(int shard) {
    nextShard = shard;
    tries = shards;
  }
}
