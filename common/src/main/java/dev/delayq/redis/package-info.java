/**
 * Internal: the Redis contract of delayq (keys, the Lua scripts and the typed gateway
 * {@link dev.delayq.redis.RedisBroker} that alone evaluates them, topologies and connections),
 * shared by the producer, the worker engine, the scheduler, the CLI and the supervisor. Public
 * classes here are public for delayq's own modules; an app uses {@code dev.delayq} and
 * {@code dev.delayq.job}, and may find what it reaches here changed in any release.
 */
package dev.delayq.redis;
