package dev.delayq.process;

import dev.delayq.redis.RedisErrors;

/**
 * One thread's view of a Redis outage: the backoff before its next try (100 ms doubling to
 * 5 s, spread by {@link Jitter} so the threads of many processes do not reconnect in step), and
 * its part in the process's {@link OutageLog}, which logs the outage once when it starts and once
 * when it ends, however many calls fail in between (Redis unreachable, or too few replicas
 * confirming its writes: each said as what it is). A server that answered as a replica
 * (READONLY) is no outage: the master moved, the connection is finding it and says so itself,
 * and the thread tries again shortly.
 */
public final class RedisOutage {
  private static final long MIN_BACKOFF_MS = 100;
  private static final long MAX_BACKOFF_MS = 5_000;
  private static final long MASTER_MOVED_RETRY_MS = 200;

  private final String subject;
  private final OutageLog log;
  private boolean down;
  private long backoffMs = MIN_BACKOFF_MS;

  /** A subject that logs on its own. */
  public RedisOutage(String subject) {
    this(subject, new OutageLog(subject));
  }

  /** A subject that shares its process's log. */
  public RedisOutage(String subject, OutageLog log) {
    this.subject = subject;
    this.log = log;
  }

  /** Records a failed call; returns how long to wait before the next try, in ms. */
  public synchronized long failed(Exception e) {
    if (RedisErrors.isTopologyChange(e)) {
      return MASTER_MOVED_RETRY_MS;
    }
    if (!down) {
      down = true;
      backoffMs = MIN_BACKOFF_MS;
    } else {
      backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
    }
    log.down(subject, e); // told every time: it logs once per outage, and again for a new kind of one
    return Jitter.spread(backoffMs, java.util.concurrent.ThreadLocalRandom.current().nextDouble());
  }

  /** Records a successful call. */
  public synchronized void succeeded() {
    if (down) {
      down = false;
      log.up(subject);
    }
  }
}
