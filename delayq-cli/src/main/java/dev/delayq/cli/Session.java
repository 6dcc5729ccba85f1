package dev.delayq.cli;

import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Admin;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;

/** One command's connection to the configured Redis and queue, with the admin gateways on it. */
final class Session implements AutoCloseable {
  final DelayqConfig config;
  final Keys keys;
  final Admin admin;
  final Inspector inspector;
  final InvariantCheck invariant;
  final RedisBroker broker;
  private final RedisConnection redis;

  private Session(DelayqConfig config, RedisConnection redis) {
    this.config = config;
    this.redis = redis;
    this.keys = Keys.of(config);
    this.broker = new RedisBroker(redis, keys).withLimits(config);
    this.admin = broker.admin(config.worker().poisonPillAfter());
    this.inspector = new Inspector(redis.client(), keys);
    this.invariant = new InvariantCheck(redis.client(), keys);
  }

  /** {@code redisUrl}: the URL of the config's Redis, with the embedded one's password when it is that. */
  static Session open(DelayqConfig config, String redisUrl) {
    return new Session(config, RedisConnector.connect(config, redisUrl, "delayq-cli", 4));
  }

  /**
   * Before a command reads or writes the queue: refuses a Cluster node given as a plain URL (it
   * would answer MOVED), and a queue.shards other than the queue's own.
   */
  Session verified() {
    redis.checkNotClusterNode();
    broker.verifyLayout();
    return this;
  }

  @Override
  public void close() {
    redis.close();
  }
}
