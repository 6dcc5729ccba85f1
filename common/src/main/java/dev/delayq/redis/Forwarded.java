package dev.delayq.redis;

import java.util.OptionalLong;

/**
 * What one forward call did; {@code nextDueAt} (epoch ms) is empty when nothing is delayed.
 * {@code redisNowMicros} is the Redis clock of the call, to the microsecond.
 */
public record Forwarded(int moved, OptionalLong nextDueAt, long redisNowMicros) {
  /** The Redis clock of the call in epoch ms, as the script compared due times with it. */
  public long redisNow() {
    return Math.floorDiv(redisNowMicros, 1000);
  }
}
