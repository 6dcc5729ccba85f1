package dev.delayq.redis;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.executors.CommandExecutor;
import redis.clients.jedis.providers.ConnectionProvider;

/**
 * The connections of one process to the Redis master, wherever it is. It hands out the
 * connections of a Jedis provider (a pool on one address, or Jedis's Sentinel provider, which
 * follows {@code +switch-master}) and says in one log line when the master it leads to changed.
 * When a server answers as a replica (READONLY) it opens a fresh provider, at most once a
 * second: a new pool on the same address (a managed failover moves the address) or a new
 * Sentinel provider, which asks the Sentinels where the master is now, in case the switch
 * message was missed. A failure to connect comes out through {@code explain}, which says
 * plainly why TLS refused.
 */
final class FollowedMaster implements ConnectionProvider, MasterView {
  private static final Logger log = LoggerFactory.getLogger(FollowedMaster.class);
  private static final long REOPEN_EVERY_NANOS = 1_000_000_000L;

  private final String process;
  private final Supplier<ConnectionProvider> open;
  private final Function<ConnectionProvider, HostAndPort> masterOf;
  private final UnaryOperator<JedisConnectionException> explain;
  private final AtomicLong epoch = new AtomicLong();
  private volatile ConnectionProvider current;
  private volatile HostAndPort master;
  /** The replica this process last said it waits on, so that it says so once. */
  private HostAndPort waitingOn;
  private long reopenedAtNanos = System.nanoTime() - REOPEN_EVERY_NANOS;

  FollowedMaster(String process, Supplier<ConnectionProvider> open,
      Function<ConnectionProvider, HostAndPort> masterOf,
      BiFunction<JedisConnectionException, HostAndPort, JedisConnectionException> explain) {
    this.process = process;
    this.open = open;
    this.masterOf = masterOf;
    this.explain = e -> explain.apply(e, master);
    this.current = open.get();
    this.master = masterOf.apply(current);
  }

  @Override
  public HostAndPort master() {
    noticeSwitch();
    return master;
  }

  /** Grows by one whenever the master this process writes to changed. */
  @Override
  public long epoch() {
    noticeSwitch();
    return epoch.get();
  }

  @Override
  public Connection getConnection() {
    noticeSwitch();
    try {
      return current.getConnection();
    } catch (JedisConnectionException e) {
      throw explain.apply(e);
    }
  }

  @Override
  public Connection getConnection(CommandArguments args) {
    return getConnection();
  }

  @Override
  public Map<?, ?> getConnectionMap() {
    return current.getConnectionMap();
  }

  @Override
  public Map<?, ?> getPrimaryNodesConnectionMap() {
    return current.getPrimaryNodesConnectionMap();
  }

  /**
   * The server at the current address answered as a replica: opens a fresh provider (at most
   * once a second) and returns true when it leads to another master than before.
   */
  @Override
  public synchronized boolean masterLost(String reason) {
    long now = System.nanoTime();
    if (now - reopenedAtNanos < REOPEN_EVERY_NANOS) {
      return false;
    }
    reopenedAtNanos = now;
    long before = epoch.get();
    HostAndPort was = master;
    ConnectionProvider fresh;
    try {
      fresh = open.get();
    } catch (RuntimeException e) {
      log.warn("{}: Redis at {} answered as a replica ({}); no master found yet: {}", process, was,
          firstWord(reason), e.getMessage());
      return false;
    }
    ConnectionProvider old = current;
    current = fresh;
    closeQuietly(old);
    if (!noticeSwitch() && before == epoch.get()) {
      if (!was.equals(waitingOn)) {
        waitingOn = was;
        log.warn("{}: Redis at {} answered as a replica ({}); reconnected, and it is still the "
            + "master named there: waiting for the failover to finish", process, was, firstWord(reason));
      }
      return false;
    }
    waitingOn = null;
    return true;
  }

  /** Logs and counts a change of master; true when there was one. */
  private boolean noticeSwitch() {
    HostAndPort now = masterOf.apply(current);
    HostAndPort was = master;
    if (now == was || now.equals(was)) {
      return false;
    }
    synchronized (this) {
      if (now.equals(master)) {
        return false;
      }
      master = now;
      epoch.incrementAndGet();
    }
    log.info("{}: Redis master is now {} (was {}): following it", process, now, was);
    return true;
  }

  private static String firstWord(String reason) {
    if (reason == null) {
      return "READONLY";
    }
    int space = reason.indexOf(' ');
    return space < 0 ? reason : reason.substring(0, space);
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      log.debug("closing the previous Redis provider: {}", e.getMessage());
    }
  }

  @Override
  public void close() {
    closeQuietly(current);
  }

  /**
   * Runs commands on this provider's connections and tells it when one was answered as by a
   * replica, so the next command goes to the master again.
   */
  static final class Executor implements CommandExecutor {
    private final FollowedMaster provider;

    Executor(FollowedMaster provider) {
      this.provider = provider;
    }

    @Override
    public <T> T executeCommand(CommandObject<T> command) {
      try (Connection connection = provider.getConnection(command.getArguments())) {
        return connection.executeCommand(command);
      } catch (JedisDataException e) {
        if (RedisErrors.isTopologyChange(e)) {
          provider.masterLost(e.getMessage());
        }
        throw e;
      }
    }

    @Override
    public void close() {
      provider.close();
    }
  }
}
