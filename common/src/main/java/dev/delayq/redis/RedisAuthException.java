package dev.delayq.redis;

import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Redis refused this process for its password: none given (NOAUTH) or a wrong one (WRONGPASS).
 * The message says where the password goes and where the embedded Redis keeps its own, since
 * "NOAUTH Authentication required" alone names neither; it never carries the password.
 */
public final class RedisAuthException extends RuntimeException {
  /** What to do, for every message of this kind (the CLI's too). */
  public static final String HINT = "give the password in the URL, DELAYQ_REDIS_URL="
      + "redis://[user]:PASSWORD@host:port (redis.url in the config file, delayq.redis.url in a Spring "
      + "app); the embedded Redis of a supervisor takes the password it keeps in run/redis.password of "
      + "its home (DELAYQ_HOME)";

  /**
   * Without Jedis's exception as its cause: the message holds Redis's reply, and a trace of
   * Jedis's frames under it (what an app's start-up log used to show) says nothing more.
   */
  private RedisAuthException(String message) {
    super(message);
  }

  /**
   * {@code e} as a RedisAuthException when a NOAUTH or WRONGPASS reply is under it (as its cause
   * or what a pool suppressed); null otherwise. {@code where} names the server ("Redis at h:p").
   */
  public static RedisAuthException of(Throwable e, String where) {
    if (e instanceof RedisAuthException a) {
      return a;
    }
    String reply = refusal(e);
    if (reply == null) {
      return null;
    }
    String what = reply.startsWith("NOAUTH") ? "asks for a password this process did not give"
        : "refused the password this process gave";
    return new RedisAuthException(where + " " + what + " (" + reply + "): " + HINT);
  }

  /** The NOAUTH or WRONGPASS reply under {@code e}, its first line; null when there is none. */
  public static String refusal(Throwable e) {
    JedisDataException data = RedisErrors.find(e, JedisDataException.class,
        t -> t.getMessage() != null && (t.getMessage().startsWith("NOAUTH") || t.getMessage().startsWith("WRONGPASS")));
    return data == null ? null : data.getMessage().split("\n")[0].trim();
  }
}
