package dev.delayq.redis;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Opens a connection pool from a Redis URL: {@code redis://[user:password@]host:port[/db]},
 * or {@code rediss://} for TLS (the JVM's default trust store).
 */
public final class RedisConnector {
  private RedisConnector() {}

  /**
   * A pool of up to {@code maxConnections}; {@code socketTimeout} bounds every non-blocking
   * reply, blocking commands wait as long as they asked to.
   */
  public static JedisPooled open(String url, String clientName, int maxConnections,
      Duration connectTimeout, Duration socketTimeout) {
    URI uri = parse(url);
    DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
        .connectionTimeoutMillis((int) connectTimeout.toMillis())
        .socketTimeoutMillis((int) socketTimeout.toMillis())
        .blockingSocketTimeoutMillis((int) socketTimeout.toMillis())
        .database(JedisURIHelper.getDBIndex(uri))
        .clientName(clientName)
        .ssl(JedisURIHelper.isRedisSSLScheme(uri));
    String password = JedisURIHelper.getPassword(uri);
    if (password != null) {
      client.password(password);
      String user = JedisURIHelper.getUser(uri);
      if (user != null && !user.isEmpty()) {
        client.user(user);
      }
    }
    GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
    pool.setMaxTotal(maxConnections);
    pool.setMaxIdle(maxConnections);
    pool.setMinIdle(0);
    pool.setJmxEnabled(false);
    pool.setTestWhileIdle(false);
    return new JedisPooled(JedisURIHelper.getHostAndPort(uri), client.build(), pool);
  }

  static URI parse(String url) {
    try {
      URI uri = new URI(url);
      if (!JedisURIHelper.isValid(uri) || !JedisURIHelper.isRedisScheme(uri)) {
        throw new IllegalArgumentException("Redis URL '" + redact(url)
            + "' is not redis://[user:password@]host:port[/db] or rediss://...");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("Redis URL '" + redact(url) + "' is malformed: " + e.getReason());
    }
  }

  /** The URL with its password replaced, fit for a log line. */
  public static String redact(String url) {
    return RedisUrl.redact(url);
  }

  /** The host and port a URL names, for messages. */
  public static HostAndPort address(String url) {
    return JedisURIHelper.getHostAndPort(parse(url));
  }
}
