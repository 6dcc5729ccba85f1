package dev.delayq.testing;

import dev.delayq.redis.Keys;
import java.util.List;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * Writes delayed jobs with a due time out of range the way a version without the range wrote
 * them (include/wheel.lua before DueTime): raw commands, a record, a bucket named
 * {@code string.format('%016d', due + 5e15) .. '|' .. id} and the depth counter.
 */
public final class OutOfRangeRecords {
  private OutOfRangeRecords() {}

  /** A job enqueued with a delay of 60,000,000 days: its position has 17 digits. Returns its due time. */
  public static long plantFarFuture(UnifiedJedis redis, Keys keys, String id, String type, String payload) {
    long now = nowMs(redis);
    long delay = 60_000_000L * 86_400_000L;
    long due = now + delay;
    String position = String.format("%016d", due + 5_000_000_000_000_000L) + "|" + id;
    plant(redis, keys, id, "{\"t\":\"" + type + "\",\"m\":5,\"c\":" + now + ",\"d\":" + delay + ",\"p\":" + payload + "}",
        position, Long.toString(due));
    return due;
  }

  /**
   * A job enqueued with a delay of Long.MAX_VALUE ms: Lua's double overflowed the position's
   * {@code %016d} to the smallest long, and the record and score hold the due time as %.14g.
   */
  public static void plantOverflowed(UnifiedJedis redis, Keys keys, String id, String type, String payload) {
    long now = nowMs(redis);
    plant(redis, keys, id, "{\"t\":\"" + type + "\",\"m\":5,\"c\":" + now + ",\"d\":9.2233720368548e+18,\"p\":" + payload + "}",
        "-9223372036854775808|" + id, "9.2233720368548e+18");
  }

  private static void plant(UnifiedJedis redis, Keys keys, String id, String record, String position, String score) {
    redis.hset(keys.jobs(), id, record);
    redis.zadd(keys.delayedIndex(), 0, position);
    redis.sendCommand(Protocol.Command.ZADD, keys.delayedBucket(position), score, id);
    redis.incr(keys.delayedCount());
  }

  private static long nowMs(UnifiedJedis redis) {
    List<?> time = (List<?>) redis.sendCommand(Protocol.Command.TIME);
    return Long.parseLong(new String((byte[]) time.get(0))) * 1000 + Long.parseLong(new String((byte[]) time.get(1))) / 1000;
  }
}
