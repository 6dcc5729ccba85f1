package dev.delayq.cli;

import dev.delayq.config.ConfigException;
import dev.delayq.redis.RedisAuthException;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.ServerCheck;
import dev.delayq.redis.ShardsNotDoneException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/** What an exception means to the operator: one line and an exit code. */
record Failure(int exitCode, String message) {

  static Failure of(Exception e, DelayqCli cli) {
    if (e instanceof CliException c) {
      return new Failure(c.exitCode(), c.getMessage());
    }
    if (e instanceof ShardsNotDoneException) {
      // done on some shards only: Redis failing there, and the message says how to finish
      return new Failure(ExitCodes.REDIS, e.getMessage());
    }
    RedisAuthException auth = RedisAuthException.of(e, "Redis" + at(cli));
    if (auth != null) {
      // NOAUTH or WRONGPASS, however Jedis wrapped it: where the password goes, never the password
      return new Failure(ExitCodes.REDIS, auth.getMessage());
    }
    if (e instanceof ConfigException) {
      return new Failure(ExitCodes.USAGE, e.getMessage());
    }
    if (e instanceof IllegalArgumentException) {
      return new Failure(ExitCodes.USAGE, e.getMessage());
    }
    if (e instanceof JedisConnectionException) {
      return new Failure(ExitCodes.REDIS, unreachable(e, cli));
    }
    if (e instanceof ServerCheck.UnfitServerException) {
      return new Failure(ExitCodes.REDIS, e.getMessage());
    }
    if (e instanceof JedisException) {
      return new Failure(ExitCodes.REDIS, "Redis failed: " + rootMessage(e));
    }
    return new Failure(ExitCodes.FAILED, e.getClass().getSimpleName() + ": " + rootMessage(e));
  }

  private static String unreachable(Exception e, DelayqCli cli) {
    String where = "";
    String hint = "";
    try {
      var config = cli.loadConfig();
      where = " at " + RedisConnector.redact(config.redisUrl());
      if (config.redis().embedded()) {
        hint = " (is bin/delayq-supervisor running?)";
      }
    } catch (RuntimeException ignored) {
      // the config was read before the connection failed; if it fails now, say less
    }
    return "cannot reach Redis" + where + ": " + rootMessage(e) + hint;
  }

  /** " at <url without its password>", or "" when the config cannot be read now. */
  private static String at(DelayqCli cli) {
    try {
      return " at " + RedisConnector.redact(cli.loadConfig().redisUrl());
    } catch (RuntimeException e) {
      return "";
    }
  }

  /** The innermost message, which for connection errors names the actual cause. */
  static String rootMessage(Throwable e) {
    Throwable t = e;
    String message = e.getMessage();
    while (true) {
      // Jedis keeps the socket's own error ("Connection refused") as a cause or a suppressed one
      Throwable next = t.getCause() != null && t.getCause() != t ? t.getCause()
          : t.getSuppressed().length > 0 ? t.getSuppressed()[0] : null;
      if (next == null) {
        break;
      }
      t = next;
      if (t.getMessage() != null) {
        message = t.getMessage();
      }
    }
    return message == null ? e.getClass().getSimpleName() : message.split("\n")[0];
  }
}
