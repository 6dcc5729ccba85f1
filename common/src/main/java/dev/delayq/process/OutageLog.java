package dev.delayq.process;

import dev.delayq.redis.ReplicaAcksException;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one process says about a Redis outage: one line when its first thread meets it and one
 * when its last is over it, however many threads (consumers, heartbeat, acks) notice. An outage
 * is said as what it is ({@link RedisTrouble}): Redis unreachable (the line operators' scripts
 * look for), Redis answering while fewer replicas than {@code redis.replicaAcks} confirm its
 * writes (Redis itself is there; the calls are retried as for an outage, for their writes are not
 * durable yet), or Redis answering with an error (out of memory, busy with a script, loading its
 * data, unable to persist: Redis is there, and says what is wrong). A thread that meets several in
 * one streak (replicas short, then the master lost) says each once, and each is over when the
 * threads that met it get through again.
 */
public final class OutageLog {
  private static final Logger log = LoggerFactory.getLogger(OutageLog.class);

  private final String process;
  /** Per thread (subject) whose calls fail, what they met since its last call that got through. */
  private final Map<String, Set<RedisTrouble>> down = new HashMap<>();
  private final Map<RedisTrouble, Long> sinceNanos = new EnumMap<>(RedisTrouble.class);

  public OutageLog(String process) {
    this.process = process;
  }

  /** {@code subject}'s call failed with {@code e} (told at every failure: a new kind of outage is said). */
  synchronized void down(String subject, Exception e) {
    RedisTrouble trouble = RedisTrouble.of(e);
    boolean first = !anyone(trouble);
    down.computeIfAbsent(subject, s -> EnumSet.noneOf(RedisTrouble.class)).add(trouble);
    if (!first) {
      return;
    }
    sinceNanos.put(trouble, System.nanoTime());
    if (trouble == RedisTrouble.UNREACHABLE) {
      log.warn("{}: Redis unreachable ({}; noticed by {}); retrying with backoff", process,
          e.getMessage(), subject);
      return;
    }
    if (trouble == RedisTrouble.ERROR_REPLY) {
      log.warn("{}: Redis answered with an error: {} (noticed by {}); retrying with backoff", process,
          RedisTrouble.errorText(e), subject);
      return;
    }
    ReplicaAcksException r = RedisTrouble.shortfall(e);
    log.warn("{}: Redis answered but too few replicas acknowledged ({} of {} wanted within {} ms "
        + "after {}, redis.replicaAcks; noticed by {}); retrying with backoff", process, r.acked(),
        r.wanted().replicas(), r.wanted().timeoutMs(), r.script(), subject);
  }

  /** {@code subject}'s call got through. */
  synchronized void up(String subject) {
    Set<RedisTrouble> met = down.remove(subject);
    if (met == null) {
      return;
    }
    for (RedisTrouble trouble : met) {
      if (anyone(trouble)) {
        continue;
      }
      String seconds = String.format("%.1f", (System.nanoTime() - sinceNanos.get(trouble)) / 1e9);
      if (trouble == RedisTrouble.UNREACHABLE) {
        log.info("{}: Redis back after {} s", process, seconds);
      } else if (trouble == RedisTrouble.ERROR_REPLY) {
        log.info("{}: Redis answers without an error again after {} s", process, seconds);
      } else {
        log.info("{}: enough replicas acknowledge again after {} s", process, seconds);
      }
    }
  }

  /** True while some subject's streak of failures has met {@code trouble}. */
  private boolean anyone(RedisTrouble trouble) {
    for (Set<RedisTrouble> met : down.values()) {
      if (met.contains(trouble)) {
        return true;
      }
    }
    return false;
  }
}
