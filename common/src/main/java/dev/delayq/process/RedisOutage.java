package dev.delayq.process;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a Redis outage once when it starts and once when it ends, however many calls fail in
 * between, and gives the backoff before the next try (100 ms doubling to 5 s).
 */
public final class RedisOutage {
  private static final Logger log = LoggerFactory.getLogger(RedisOutage.class);
  private static final long MIN_BACKOFF_MS = 100;
  private static final long MAX_BACKOFF_MS = 5_000;

  private final String subject;
  private long downSinceNanos = -1;
  private long backoffMs = MIN_BACKOFF_MS;

  public RedisOutage(String subject) {
    this.subject = subject;
  }

  /** Records a failed call; returns how long to wait before the next try, in ms. */
  public synchronized long failed(Exception e) {
    if (downSinceNanos < 0) {
      downSinceNanos = System.nanoTime();
      backoffMs = MIN_BACKOFF_MS;
      log.warn("{}: Redis unreachable ({}); retrying with backoff", subject, e.getMessage());
    } else {
      backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
    }
    return backoffMs;
  }

  /** Records a successful call. */
  public synchronized void succeeded() {
    if (downSinceNanos >= 0) {
      double seconds = (System.nanoTime() - downSinceNanos) / 1e9;
      log.info("{}: Redis back after {} s", subject, String.format("%.1f", seconds));
      downSinceNanos = -1;
    }
  }

  public synchronized boolean isDown() {
    return downSinceNanos >= 0;
  }
}
