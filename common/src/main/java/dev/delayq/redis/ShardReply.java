package dev.delayq.redis;

import redis.clients.jedis.exceptions.JedisException;

/**
 * One shard's answer to a call made on several shards in one round trip: its value, or (value
 * null) the error its call met, which the other shards' answers do not share.
 */
public record ShardReply<T>(int shard, T value, JedisException failure) {}
