package dev.delayq.scheduler;

import dev.delayq.process.ShardHealth;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.ShardReply;
import java.util.ArrayList;
import java.util.List;

/**
 * Frees the caller-chosen ids whose queue.idRetention window has passed, a bounded chunk per
 * call (forgetEnded.lua), oldest first. An id past its window is already free to enqueue.lua
 * (it checks the expiry itself); trimming only gives the memory back. With several shards each
 * shard's chunk goes in one round trip, a failing shard's left out (its trim waits for it to
 * answer again: it costs no job).
 */
final class IdRetentionTrimmer {
  static final int CHUNK = 1000;

  private final RedisBroker broker;

  IdRetentionTrimmer(RedisBroker broker) {
    this.broker = broker;
  }

  /**
   * Frees one chunk in each shard that {@code health} does not hold back, telling it of a shard
   * whose call failed (with one shard the failure is thrown: the outage path); true when some
   * shard's chunk came back full (more may be due: call again soon).
   */
  boolean tick(ShardHealth health) {
    List<Integer> shards = new ArrayList<>(broker.shards());
    for (int s = 0; s < broker.shards(); s++) {
      if (!health.failing(s)) {
        shards.add(s);
      }
    }
    boolean full = false;
    for (ShardReply<Integer> freed : broker.scheduling().forgetEndedEach(shards, CHUNK)) {
      if (freed.failure() != null) {
        health.failedOrThrow(freed.shard(), freed.failure());
      } else {
        full |= freed.value() == CHUNK;
      }
    }
    return full;
  }
}
