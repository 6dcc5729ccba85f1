package dev.delayq.supervisor.host;

import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.RedisAuthException;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.ServerCheck;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The supervisor's look at Redis before it starts a scheduler or a worker: reachable, the
 * password right, and a server that can keep jobs ({@link ServerCheck}). Without it a wrong
 * redis.url made every child crash-loop into FATAL, with the reason only in their logs.
 */
public final class RedisPreflight {
  private RedisPreflight() {}

  /** Throws {@link StartRefusedException} saying what is wrong and what to change. */
  public static void check(RedisConnection redis, DelayqConfig config) {
    String where = config.redis().embedded() ? "the embedded Redis" : "redis.url (DELAYQ_REDIS_URL)";
    try {
      redis.checkServer(config.redis().requireNoeviction());
    } catch (RedisAuthException | ServerCheck.UnfitServerException e) {
      throw new StartRefusedException("cannot start: " + e.getMessage());
    } catch (JedisConnectionException e) {
      throw new StartRefusedException("cannot start: Redis " + redis.describe() + " is unreachable ("
          + rootMessage(e) + "): check " + where + " and that Redis runs there; no child was started");
    } catch (RuntimeException e) {
      throw new StartRefusedException("cannot start: Redis " + redis.describe() + " failed the start-up check ("
          + rootMessage(e) + "); no child was started");
    }
  }

  /**
   * The innermost message: the socket's own error ("Connection refused") under Jedis's, which
   * keeps it as a cause or a suppressed one. A few steps only: a pool's failures may suppress
   * one another in a ring.
   */
  private static String rootMessage(Throwable e) {
    String message = e.getMessage();
    Throwable t = e;
    for (int step = 0; step < 8 && t != null; step++) {
      if (t.getMessage() != null) {
        message = t.getMessage();
      }
      t = t.getCause() != null && t.getCause() != t ? t.getCause()
          : t.getSuppressed().length > 0 ? t.getSuppressed()[0] : null;
    }
    return message == null ? e.getClass().getSimpleName() : message.split("\n")[0];
  }
}
