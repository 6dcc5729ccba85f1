package dev.delayq.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import redis.clients.jedis.UnifiedJedis;

/**
 * The probes' stamps on their way to the bench's Redis lists, in batches: one RPUSH per job was
 * about half a consumer's time at 5,000 jobs/s (the bench measured itself), so a stamp is taken
 * by the handler as before and only buffered here; a daemon thread pushes what is buffered every
 * {@link #FLUSH_EVERY_MS} ms, and a handler that fills a list's buffer to {@link #FLUSH_AT}
 * pushes it at once. The bench waits until every stamp is in its list, so it waits for the last
 * flush too; a JVM shutdown hook flushes what a draining worker still holds. A stamp a SIGKILL
 * catches in the buffer is lost, which is why the soak's ledger entries are never buffered (see
 * {@link LatenessProbe}).
 */
final class ProbeStamps {
  static final long FLUSH_EVERY_MS = 50;
  static final int FLUSH_AT = 200;

  private final Supplier<UnifiedJedis> redis;
  /** Per log list, its stamps not yet pushed, in the order they were taken; guarded by this. */
  private final Map<String, List<String>> pending = new LinkedHashMap<>();
  /**
   * Held from taking a buffer to its push (or its return after a failed push): one push at a
   * time, so that stamps reach their list in the order they were taken even when a push fails
   * while another is on its way (the later one would otherwise land first, or be put back ahead).
   */
  private final Object pushing = new Object();

  ProbeStamps(Supplier<UnifiedJedis> redis) {
    this.redis = redis;
    Thread flusher = new Thread(() -> {
      while (true) {
        try {
          Thread.sleep(FLUSH_EVERY_MS);
          flushAll();
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "bench-probe-stamps");
    flusher.setDaemon(true);
    flusher.start();
    Runtime.getRuntime().addShutdownHook(new Thread(this::flushAll, "bench-probe-stamps-exit"));
  }

  /** Buffers {@code entry} for {@code log}; pushes that list's buffer at once when it is full. */
  void add(String log, String entry) {
    boolean full;
    synchronized (this) {
      List<String> list = pending.computeIfAbsent(log, k -> new ArrayList<>());
      list.add(entry);
      full = list.size() >= FLUSH_AT;
    }
    if (full) {
      synchronized (pushing) {
        List<String> entries;
        synchronized (this) {
          entries = pending.remove(log);
        }
        if (entries != null) { // else a flush took them first
          push(log, entries);
        }
      }
    }
  }

  /** Pushes every list's buffer. */
  void flushAll() {
    synchronized (pushing) {
      Map<String, List<String>> batch;
      synchronized (this) {
        if (pending.isEmpty()) {
          return;
        }
        batch = new LinkedHashMap<>(pending);
        pending.clear();
      }
      batch.forEach(this::push);
    }
  }

  /**
   * A failed push (a Redis hiccup) puts the stamps back in front of any taken since, for the next
   * round: no stamp is lost to it, and the job whose stamp filled the buffer is not failed for it.
   * Called with {@link #pushing} held.
   */
  private void push(String log, List<String> entries) {
    try {
      redis.get().rpush(log, entries.toArray(String[]::new));
    } catch (RuntimeException e) {
      System.err.println("bench_probe: could not push " + entries.size() + " stamps: " + e.getMessage());
      synchronized (this) {
        pending.computeIfAbsent(log, k -> new ArrayList<>()).addAll(0, entries);
      }
    }
  }
}
