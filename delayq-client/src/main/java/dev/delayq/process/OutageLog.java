package dev.delayq.process;

import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one process says about a Redis outage: one line when its first thread loses Redis and
 * one when its last gets it back, however many threads (consumers, heartbeat, acks) notice.
 */
public final class OutageLog {
  private static final Logger log = LoggerFactory.getLogger(OutageLog.class);

  private final String process;
  private final Set<String> down = new HashSet<>();
  private long downSinceNanos;

  public OutageLog(String process) {
    this.process = process;
  }

  synchronized void down(String subject, Exception e) {
    if (down.isEmpty()) {
      downSinceNanos = System.nanoTime();
      log.warn("{}: Redis unreachable ({}; noticed by {}); retrying with backoff", process,
          e.getMessage(), subject);
    }
    down.add(subject);
  }

  synchronized void up(String subject) {
    if (down.remove(subject) && down.isEmpty()) {
      log.info("{}: Redis back after {} s", process,
          String.format("%.1f", (System.nanoTime() - downSinceNanos) / 1e9));
    }
  }
}
