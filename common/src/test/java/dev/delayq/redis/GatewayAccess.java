package dev.delayq.redis;

import redis.clients.jedis.UnifiedJedis;

/**
 * The broker's client, for tests outside the gateway's package that plant or read keys by hand
 * (a breach, a garbled record). Main code goes through the broker's typed methods instead.
 */
public final class GatewayAccess {
  private GatewayAccess() {}

  public static UnifiedJedis redis(RedisBroker broker) {
    return broker.redis();
  }
}
