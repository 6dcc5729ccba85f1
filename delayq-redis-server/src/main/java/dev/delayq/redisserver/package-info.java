/**
 * A redis-server to run: {@link dev.delayq.redisserver.RedisBinary} finds one (PATH, else the
 * binary embedded-redis ships) for the supervisor's embedded Redis and the bench, and
 * {@link dev.delayq.redisserver.RedisServer} starts a private one on a free loopback port for
 * tests (delayq's own and the delayq-test kit's). Not for apps to use directly: it may change
 * in any release.
 */
package dev.delayq.redisserver;
