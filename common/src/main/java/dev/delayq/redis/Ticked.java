package dev.delayq.redis;

/** What {@link #tickSchedule} did; {@code redisNow} is Redis's clock at the call. */
public record Ticked(int code, long redisNow) {
  public boolean stale() {
    return code == 0;
  }
}
