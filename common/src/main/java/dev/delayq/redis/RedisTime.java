package dev.delayq.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/** The Redis server's clock, the one every script reads, as epoch milliseconds. */
public final class RedisTime {
  private RedisTime() {}

  /**
   * TIME, sent with {@code sampleKey} so that a cluster client routes it to that key's master
   * (a cluster client cannot dispatch a keyless command); a plain client ignores the key.
   */
  public static long nowMs(UnifiedJedis redis, String sampleKey) {
    List<?> t = (List<?>) redis.sendCommand(sampleKey, Protocol.Command.TIME);
    long seconds = Long.parseLong(new String((byte[]) t.get(0), StandardCharsets.US_ASCII));
    long micros = Long.parseLong(new String((byte[]) t.get(1), StandardCharsets.US_ASCII));
    return seconds * 1000 + micros / 1000;
  }
}
