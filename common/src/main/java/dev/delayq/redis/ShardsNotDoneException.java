package dev.delayq.redis;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * An operator's change of a sharded queue that some shards did not take (their master failed or
 * could not be reached), while the others did. The change is idempotent per shard, so running it
 * again finishes it; the message says so and names the shards, each with the error its call met.
 */
public final class ShardsNotDoneException extends RuntimeException {
  private final int shards;
  private final SortedMap<Integer, String> failed;

  ShardsNotDoneException(String what, int shards, Map<Integer, ? extends RuntimeException> failures) {
    super(message(what, shards, failures));
    this.shards = shards;
    this.failed = new TreeMap<>();
    failures.forEach((shard, e) -> failed.put(shard, reason(e)));
    failures.values().forEach(this::addSuppressed);
  }

  /** The shards that did not take the change, in shard order. */
  public List<Integer> notDone() {
    return List.copyOf(failed.keySet());
  }

  /** The queue's shard count. */
  public int shards() {
    return shards;
  }

  private static String message(String what, int shards, Map<Integer, ? extends RuntimeException> failures) {
    SortedMap<Integer, RuntimeException> sorted = new TreeMap<>(failures);
    String notDone = sorted.entrySet().stream()
        .map(e -> e.getKey() + " (" + reason(e.getValue()) + ")").collect(Collectors.joining(", "));
    String done = java.util.stream.IntStream.range(0, shards).filter(i -> !sorted.containsKey(i))
        .mapToObj(Integer::toString).collect(Collectors.joining(", "));
    return what + ": not done on shard" + (sorted.size() == 1 ? " " : "s ") + notDone + " of " + shards
        + (done.isEmpty() ? "" : "; done on " + done)
        + ". Run it again once Redis answers: it finishes the shards not done and leaves the others as they are";
  }

  /** The innermost message of a Redis error: the socket's own ("Connection refused") or the server's. */
  private static String reason(Throwable e) {
    Throwable t = e;
    String message = e.getMessage();
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
      if (t.getMessage() != null) {
        message = t.getMessage();
      }
    }
    return message == null ? e.getClass().getSimpleName() : message.split("\n")[0];
  }
}
