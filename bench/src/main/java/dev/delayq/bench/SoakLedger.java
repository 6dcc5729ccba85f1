package dev.delayq.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.UnifiedJedis;

/**
 * The soak's ledger: takes the probes' "<seq>,<start ms>,<due ms>,<attempt>" entries off their
 * Redis list as they come (so the list never grows with the run), marks each sequence number seen
 * once (a second sighting is a duplicate) and files the first start's lateness under the minute
 * the job was due, and the start itself under the minute it happened. A duplicate at a higher
 * attempt is a job its killed worker had started and not acknowledged, charged and run again as
 * at-least-once promises; a duplicate at an attempt already seen is a job that ran twice without
 * being charged, which crash exactness says must never happen: the two are counted apart. One thread writes; the
 * figures are read after {@link #stop()} and a join, except {@link #ran()}.
 */
final class SoakLedger {
  private final UnifiedJedis redis;
  private final String log;
  private final long t0;
  /** Per sequence number: the highest attempt seen start, 0 for none yet. */
  private byte[] attemptSeen = new byte[1 << 16];
  private final Histogram[] latenessByDueMinute;
  private final Histogram overall = new Histogram(3_600_000L, 3);
  private final long[] startedByMinute;
  private final long[] earlyByDueMinute;
  private volatile long ran;
  private volatile long duplicates;
  private volatile long sameAttemptTwice;
  private volatile boolean stopped;

  SoakLedger(UnifiedJedis redis, String log, long t0, int minutes) {
    this.redis = redis;
    this.log = log;
    this.t0 = t0;
    this.latenessByDueMinute = new Histogram[minutes];
    for (int m = 0; m < minutes; m++) {
      latenessByDueMinute[m] = new Histogram(3_600_000L, 3);
    }
    this.startedByMinute = new long[minutes];
    this.earlyByDueMinute = new long[minutes];
  }

  void run() {
    try {
      while (true) {
        boolean last = stopped;
        List<String> batch = redis.lpop(log, 5000);
        if (batch == null || batch.isEmpty()) {
          if (last) {
            return;
          }
          Thread.sleep(50);
          continue;
        }
        batch.forEach(this::record);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void record(String entry) {
    String[] f = entry.split(",");
    int seq = Integer.parseInt(f[0]);
    long start = Long.parseLong(f[1]);
    long due = Long.parseLong(f[2]);
    int attempt = Math.min(Byte.MAX_VALUE, Integer.parseInt(f[3]));
    startedByMinute[minute(start)]++;
    if (seq >= attemptSeen.length) {
      attemptSeen = Arrays.copyOf(attemptSeen, Math.max(seq + 1, attemptSeen.length * 2));
    }
    int before = attemptSeen[seq];
    attemptSeen[seq] = (byte) Math.max(before, attempt);
    if (before > 0) {
      duplicates++;
      if (attempt <= before) {
        sameAttemptTwice++;
      }
      return;
    }
    ran++;
    long late = start - due;
    if (late < 0) {
      earlyByDueMinute[minute(due)]++;
    }
    latenessByDueMinute[minute(due)].recordValue(Math.max(0, late));
    overall.recordValue(Math.max(0, late));
  }

  private int minute(long epochMs) {
    return (int) Math.max(0, Math.min(startedByMinute.length - 1, (epochMs - t0) / 60_000));
  }

  /** Takes what is left on the list, then ends {@link #run()}. */
  void stop() {
    stopped = true;
  }

  /** Distinct jobs that started at least once. */
  long ran() {
    return ran;
  }

  /** Starts after the first of a job: a crash's re-runs and any run twice at one attempt. */
  long duplicates() {
    return duplicates;
  }

  /** Duplicates at an attempt that had started already: runs that were never charged. */
  long sameAttemptTwice() {
    return sameAttemptTwice;
  }

  long startedIn(int minute) {
    return startedByMinute[minute];
  }

  long dueIn(int minute) {
    return latenessByDueMinute[minute].getTotalCount();
  }

  Map<String, Object> latenessIn(int minute) {
    Map<String, Object> l = percentiles(latenessByDueMinute[minute]);
    l.put("early", earlyByDueMinute[minute]);
    return l;
  }

  Map<String, Object> overall() {
    return percentiles(overall);
  }

  private static Map<String, Object> percentiles(Histogram h) {
    Map<String, Object> l = new LinkedHashMap<>();
    l.put("p50_ms", h.getValueAtPercentile(50));
    l.put("p99_ms", h.getValueAtPercentile(99));
    l.put("max_ms", h.getMaxValue());
    return l;
  }
}
