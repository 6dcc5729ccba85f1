package dev.delayq.e2e;

import java.util.concurrent.ConcurrentSkipListMap;

/**
 * How long the shared test host starved a runnable thread, and when: a thread of the test JVM
 * sleeps 1 ms at a time and notes each wake-up that came later than that by over 5 ms. A
 * lateness test adds the stall seen around a job's due time to the product's bound, so that the
 * bound still holds the product on a quiet host and a loaded host's stall is not charged to it.
 */
final class HostStalls implements AutoCloseable {
  private static final long NOTED_OVER_MS = 5;

  /** Epoch ms a late wake-up was due -> how many ms late it came. */
  private final ConcurrentSkipListMap<Long, Long> stalls = new ConcurrentSkipListMap<>();
  private final Thread meter;
  private volatile boolean done;

  HostStalls() {
    meter = new Thread(() -> {
      try {
        while (!done) {
          long due = System.nanoTime() + 1_000_000;
          long dueMs = System.currentTimeMillis() + 1;
          Thread.sleep(1);
          long lateMs = (System.nanoTime() - due) / 1_000_000;
          if (lateMs > NOTED_OVER_MS) {
            stalls.merge(dueMs, lateMs, Math::max);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "host-stalls");
    meter.setDaemon(true);
    meter.start();
  }

  /** The longest stall that overlapped [fromMs, toMs] (epoch ms), 0 when none. */
  long longestDuring(long fromMs, long toMs) {
    long longest = 0;
    // a stall noted at t lasted until t + its length: one noted up to a second before may reach in
    for (var e : stalls.subMap(fromMs - 1_000, true, toMs, true).entrySet()) {
      if (e.getKey() + e.getValue() >= fromMs) {
        longest = Math.max(longest, e.getValue());
      }
    }
    return longest;
  }

  @Override
  public void close() throws InterruptedException {
    done = true;
    meter.join();
  }
}
