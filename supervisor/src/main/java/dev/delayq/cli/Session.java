package dev.delayq.cli;

import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Admin;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnector;
import redis.clients.jedis.JedisPooled;

/** One command's connection to the configured Redis and queue, with the admin gateways on it. */
final class Session implements AutoCloseable {
  final DelayqConfig config;
  final Keys keys;
  final Admin admin;
  final Inspector inspector;
  final RedisBroker broker;
  private final JedisPooled redis;

  private Session(DelayqConfig config, JedisPooled redis) {
    this.config = config;
    this.redis = redis;
    this.keys = new Keys(config.queue().keyPrefix(), config.queue().name());
    this.admin = new Admin(redis, keys, config.worker().poisonPillAfter());
    this.inspector = new Inspector(redis, keys);
    this.broker = new RedisBroker(redis, keys);
  }

  /** {@code redisUrl}: the URL of the config's Redis, with the embedded one's password when it is that. */
  static Session open(DelayqConfig config, String redisUrl) {
    JedisPooled redis = RedisConnector.open(redisUrl, "delayq-cli", 4,
        config.redis().connectTimeout(), config.redis().socketTimeout());
    return new Session(config, redis);
  }

  @Override
  public void close() {
    redis.close();
  }
}
