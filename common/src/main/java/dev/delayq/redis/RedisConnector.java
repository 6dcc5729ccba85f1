package dev.delayq.redis;

import dev.delayq.config.DelayqConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.BiFunction;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.providers.PooledConnectionProvider;
import redis.clients.jedis.providers.SentineledConnectionProvider;
import redis.clients.jedis.util.Delay;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Opens the connection every delayq process uses, from the {@code redis} section of the config:
 * Jedis's {@link RedisClient} on {@code redis.url} ({@code redis://} or {@code rediss://} for TLS),
 * or its {@link RedisSentinelClient} on the master the Sentinels at {@code redis.sentinels} name
 * {@code redis.masterName}. Both are {@link UnifiedJedis}, as Jedis's cluster client is, so the
 * gateways above run unchanged on any of them. Replies are RESP2, as the scripts expect.
 */
public final class RedisConnector {
  private static final Logger log = LoggerFactory.getLogger(RedisConnector.class);
  /** Jedis waits 5 s by default before it listens to a Sentinel again: a switch could pass unheard. */
  private static final Delay SENTINEL_RECONNECT = Delay.constant(Duration.ofMillis(500));

  private RedisConnector() {}

  /** A connection of up to {@code maxConnections} to the configured Redis, named {@code clientName}. */
  public static RedisConnection connect(DelayqConfig config, String clientName, int maxConnections) {
    return connect(config.redis(), config.redisUrl(), clientName, maxConnections);
  }

  /**
   * The same on {@code url} instead of {@code redis.url}: the embedded Redis's URL with the
   * password the supervisor keeps in {@code run/}.
   */
  public static RedisConnection connect(DelayqConfig config, String url, String clientName,
      int maxConnections) {
    return connect(config.redis(), url, clientName, maxConnections);
  }

  /**
   * A pool on one URL with no other settings (tests, tools): {@code socketTimeout} bounds every
   * non-blocking reply, blocking commands wait as long as they asked to.
   */
  public static UnifiedJedis open(String url, String clientName, int maxConnections,
      Duration connectTimeout, Duration socketTimeout) {
    DelayqConfig.Redis plain = new DelayqConfig.Redis(url, 6390, true, connectTimeout, socketTimeout,
        "", "", "", true, "", "", 0, socketTimeout.dividedBy(2), "");
    return connect(plain, url, clientName, maxConnections).client();
  }

  static RedisConnection connect(DelayqConfig.Redis config, String url, String clientName,
      int maxConnections) {
    if (!config.clusterNodes().isEmpty()) {
      return connectCluster(config, url, clientName, maxConnections);
    }
    boolean sentinel = !config.sentinelNodes().isEmpty();
    URI uri = sentinel && url.isEmpty() ? null : parse(url, !sentinel);
    if (sentinel && uri != null && !config.masterName().equals(uri.getHost())) {
      throw new IllegalArgumentException("redis.url '" + redact(url) + "': with redis.sentinels its "
          + "host must be the master name '" + config.masterName() + "' (rediss://[user:password@]"
          + config.masterName() + "[/db]): the Sentinels say where the master runs");
    }
    boolean tls = uri == null ? config.tls() : JedisURIHelper.isRedisSSLScheme(uri);
    if (tls && !config.tlsVerifyHostname()) {
      log.warn("{}: redis.tlsVerifyHostname is false: the Redis certificate is checked against the CA "
          + "only, not against the host name; anyone holding a certificate from that CA can pose as "
          + "this Redis", clientName);
    }
    SSLSocketFactory sockets = tls && (!config.tlsCaFile().isEmpty() || !config.tlsCertFile().isEmpty())
        ? TlsFiles.socketFactory(config) : null;
    JedisClientConfig client = clientConfig(config, uri, clientName, tls, sockets, true);
    GenericObjectPoolConfig<Connection> pool = pool(maxConnections);
    ReplicaAcks acks = new ReplicaAcks(config.replicaAcks(), config.replicaAcksTimeout().toMillis());
    BiFunction<JedisConnectionException, HostAndPort, JedisConnectionException> explain =
        !tls ? (e, at) -> e
            : (e, at) -> RedisErrors.explainTls(e, at, config.tlsCaFile(), !config.tlsCertFile().isEmpty());
    if (!sentinel) {
      HostAndPort address = JedisURIHelper.getHostAndPort(uri);
      FollowedMaster master = new FollowedMaster(clientName,
          () -> new PooledConnectionProvider(address, client, pool), p -> address, explain);
      UnifiedJedis jedis = RedisClient.builder().hostAndPort(address).clientConfig(client)
          .connectionProvider(master).commandExecutor(new FollowedMaster.Executor(master)).build();
      return new RedisConnection(jedis, master, acks, redact(url));
    }
    Set<HostAndPort> sentinels = new LinkedHashSet<>();
    for (String node : config.sentinelNodes()) {
      sentinels.add(HostAndPort.from(node));
    }
    JedisClientConfig sentinelClient = clientConfig(config, null, clientName, tls, sockets, false);
    FollowedMaster master = new FollowedMaster(clientName,
        () -> new SentineledConnectionProvider(config.masterName(), client, pool, sentinels,
            sentinelClient, SENTINEL_RECONNECT),
        p -> ((SentineledConnectionProvider) p).getCurrentMaster(), explain);
    UnifiedJedis jedis = RedisSentinelClient.builder().masterName(config.masterName())
        .sentinels(sentinels).clientConfig(client).sentinelClientConfig(sentinelClient)
        .connectionProvider(master).commandExecutor(new FollowedMaster.Executor(master)).build();
    return new RedisConnection(jedis, master, acks, "Sentinel master '" + config.masterName()
        + "' via " + config.sentinels() + (tls ? " over TLS" : ""));
  }

  /**
   * Jedis's cluster client on the seed nodes of {@code redis.cluster}: it reads the slot map from
   * them, keeps a pool per master, and follows MOVED and ASK. {@code url} may give the scheme
   * (rediss:// for TLS) and credentials; a cluster has only database 0.
   */
  private static RedisConnection connectCluster(DelayqConfig.Redis config, String url,
      String clientName, int maxConnections) {
    URI uri = url.isEmpty() ? null : parse(url, false);
    if (uri != null && JedisURIHelper.getDBIndex(uri) != 0) {
      throw new IllegalArgumentException("redis.url '" + redact(url) + "': a Redis Cluster has only "
          + "database 0; drop the /" + JedisURIHelper.getDBIndex(uri) + " from the url");
    }
    boolean tls = uri == null ? config.tls() : JedisURIHelper.isRedisSSLScheme(uri);
    SSLSocketFactory sockets = tls && (!config.tlsCaFile().isEmpty() || !config.tlsCertFile().isEmpty())
        ? TlsFiles.socketFactory(config) : null;
    JedisClientConfig client = clientConfig(config, uri, clientName, tls, sockets, true);
    Set<HostAndPort> seeds = new LinkedHashSet<>();
    for (String node : config.clusterNodes()) {
      seeds.add(HostAndPort.from(node));
    }
    RedisClusterClient jedis = RedisClusterClient.builder().nodes(seeds).clientConfig(client)
        .poolConfig(pool(maxConnections)).build();
    ReplicaAcks acks = new ReplicaAcks(config.replicaAcks(), config.replicaAcksTimeout().toMillis());
    return new RedisConnection(jedis, new ClusterTopology(clientName, jedis), acks,
        "Redis Cluster via " + config.cluster() + (tls ? " over TLS" : ""));
  }

  /**
   * The settings of each connection. The Sentinels' take no database, name or credentials, and
   * no read timeout: their connection waits for +switch-master, which may not come for months
   * (a timeout there would drop the subscription every few seconds, and a switch with it).
   */
  private static JedisClientConfig clientConfig(DelayqConfig.Redis config, URI uri, String clientName,
      boolean tls, SSLSocketFactory sockets, boolean toMaster) {
    DefaultJedisClientConfig.Builder b = DefaultJedisClientConfig.builder()
        .serverDefaultProtocol()
        .connectionTimeoutMillis((int) config.connectTimeout().toMillis())
        .socketTimeoutMillis(toMaster ? (int) config.socketTimeout().toMillis() : 0)
        .blockingSocketTimeoutMillis(toMaster ? (int) config.socketTimeout().toMillis() : 0)
        .ssl(tls);
    if (tls) {
      SSLParameters parameters = TlsFiles.parameters(config.tlsVerifyHostname());
      b.sslParameters(parameters);
      b.sslSocketFactory(new HandshakeFirstSockets(
          sockets != null ? sockets : (SSLSocketFactory) SSLSocketFactory.getDefault(), parameters,
          config.connectTimeout()));
    }
    if (toMaster) {
      b.clientName(clientName);
      if (uri != null) {
        b.database(JedisURIHelper.getDBIndex(uri));
        String password = JedisURIHelper.getPassword(uri);
        if (password != null) {
          b.password(password);
          String user = JedisURIHelper.getUser(uri);
          if (user != null && !user.isEmpty()) {
            b.user(user);
          }
        }
      }
    }
    return b.build();
  }

  private static GenericObjectPoolConfig<Connection> pool(int maxConnections) {
    GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
    pool.setMaxTotal(maxConnections);
    pool.setMaxIdle(maxConnections);
    pool.setMinIdle(0);
    pool.setJmxEnabled(false);
    pool.setTestWhileIdle(false);
    return pool;
  }

  static URI parse(String url) {
    return parse(url, true);
  }

  /** Parses a Redis URL; with Sentinels the host is the master's name and there is no port. */
  private static URI parse(String url, boolean needsPort) {
    try {
      URI uri = new URI(url);
      boolean schemeOk = JedisURIHelper.isRedisScheme(uri) || JedisURIHelper.isRedisSSLScheme(uri);
      if (!schemeOk || uri.getHost() == null || (needsPort && !JedisURIHelper.isValid(uri))) {
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
