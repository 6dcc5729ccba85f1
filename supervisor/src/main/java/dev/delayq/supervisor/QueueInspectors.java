package dev.delayq.supervisor;

import dev.delayq.redis.Inspector;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The read side of every queue the system serves, in worker.queues's order, for status and the
 * drain report: each queue is read in its own slot. {@link #main} is queue.name's, the one
 * {@code status}'s "queue" field has always shown.
 */
public final class QueueInspectors {
  private final String mainQueue;
  private final Map<String, Inspector> all;

  public QueueInspectors(String mainQueue, Map<String, Inspector> all) {
    if (!all.containsKey(mainQueue)) {
      throw new IllegalArgumentException("the main queue " + mainQueue + " is not among " + all.keySet());
    }
    this.mainQueue = mainQueue;
    this.all = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(all));
  }

  public Inspector main() {
    return all.get(mainQueue);
  }

  /** Queue name -> its inspector, in order. */
  public Map<String, Inspector> all() {
    return all;
  }

  /** The jobs in flight in every queue. */
  long inFlight() {
    long sum = 0;
    for (Inspector i : all.values()) {
      sum += i.depths().inFlight();
    }
    return sum;
  }
}
