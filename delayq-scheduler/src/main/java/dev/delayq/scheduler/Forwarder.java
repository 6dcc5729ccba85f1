package dev.delayq.scheduler;

import dev.delayq.redis.Forwarded;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.ShardReply;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A Forwarder moves due ids from delayed to ready so that consumers see them, one bounded
 * batch per {@link #tick()}; it never touches in-flight lists. The caller loops at once while a
 * tick fills its batch, else sleeps until {@link Pass#nextDueNanos()}.
 */
final class Forwarder {
  private final RedisBroker broker;
  private final int batchSize;

  Forwarder(RedisBroker broker, int batchSize) {
    this.broker = broker;
    this.batchSize = batchSize;
  }

  /**
   * One pass: how many ids moved, whether more are due at once, and when the next one falls
   * due on this JVM's monotonic clock (Long.MAX_VALUE when nothing is delayed). The wait is
   * measured from Redis's own clock in the same reply, so this host's wall clock never matters,
   * and to the microsecond: the next due id is due from the start of its millisecond, and a wait
   * counted from a clock cut to the ms would end up to 1 ms (0.5 ms on average) after it. A pass
   * whose shard's call failed (its master lost, say) has {@code failure} set and moved nothing;
   * the other shards' passes of the same round trip are answered all the same.
   */
  record Pass(int moved, boolean moreDue, long nextDueNanos, long redisNowMicros, JedisException failure) {
    static Pass failed(JedisException failure) {
      return new Pass(0, false, Long.MAX_VALUE, 0, failure);
    }

    /** The Redis clock of the pass in epoch ms. */
    long redisNowMs() {
      return Math.floorDiv(redisNowMicros, 1000);
    }
  }

  /** One pass over shard 0 (the whole queue when it has one shard); a failed call is thrown. */
  Pass tick() {
    return tick(0);
  }

  int shards() {
    return broker.shards();
  }

  /** One pass over one shard; a failed call is thrown. */
  Pass tick(int shard) {
    Pass pass = tick(List.of(shard), 0).get(0);
    if (pass.failure() != null) {
      throw pass.failure();
    }
    return pass;
  }

  /**
   * One pass over each of {@code shards}, all in one round trip; the passes in their order. With
   * a {@code graceMs} above 0 it is a hot standby's pass over shards whose lease another scheduler
   * holds: it moves only the ids due at least that long ago, which the holder should have moved,
   * and each shard's next pass is due when its next id is that overdue. Moving nothing is then the
   * normal outcome. A shard whose call failed gets a {@link Pass#failed} pass; the others' are used.
   */
  List<Pass> tick(List<Integer> shards, long graceMs) {
    // Redis read its clock between the send and the reply, about halfway: the wait counts from
    // there. Counted from the reply, each forward reached Redis a whole round trip (and the
    // script's time) after its due time; from the send, at the due time itself, so about half of
    // them too early, moving nothing (in a traced run 0.2 more calls a job); from halfway, one
    // way's latency after it, and hardly ever early.
    long sent = System.nanoTime();
    List<ShardReply<Forwarded>> all = broker.scheduling().moveDueToReadyEach(shards, batchSize, graceMs);
    long clockRead = sent + (System.nanoTime() - sent) / 2;
    List<Pass> out = new ArrayList<>(all.size());
    for (ShardReply<Forwarded> reply : all) {
      if (reply.failure() != null) {
        out.add(Pass.failed(reply.failure()));
        continue;
      }
      Forwarded f = reply.value();
      long next = Long.MAX_VALUE;
      if (f.nextDueAt().isPresent()) {
        next = clockRead + waitNanos(f.nextDueAt().getAsLong() + graceMs, f.redisNowMicros());
      }
      out.add(new Pass(f.moved(), f.moved() == batchSize, next, f.redisNowMicros(), null));
    }
    return out;
  }

  /** From Redis's clock {@code nowMicros} to the start of the millisecond {@code dueMs}; 0 when past. */
  static long waitNanos(long dueMs, long nowMicros) {
    return Math.max(0, dueMs * 1000 - nowMicros) * 1000;
  }
}
