package dev.delayq.metrics;

import dev.delayq.redis.Keys;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.UnifiedJedis;

/**
 * Counts what a worker's consumers do (outcomes per type, lateness, handler duration) in
 * memory, and adds the counts to Redis once a second in one pipeline: into the queue's
 * cumulative {@link Keys#stats()} hash and into the hash of the current second, which live
 * charts read. One scrape of any process then covers every worker on every host.
 */
public final class StatsRecorder {
  /** What became of a run. */
  public enum Event {
    SUCCEEDED("succeeded"), FAILED("failed"), RETRIED("retried"), DEAD("dead"),
    RESCHEDULED("rescheduled"), STARTED("started");

    private final String field;

    Event(String field) {
      this.field = field;
    }

    public String field() {
      return field;
    }
  }

  /** Seconds a per-second hash is kept. */
  public static final int SECONDS_KEPT = 3600;

  private final Keys keys;
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  public StatsRecorder(Keys keys) {
    this.keys = keys;
  }

  /** A handler is starting, {@code latenessMs} after its job was due. */
  public void started(String type, long latenessMs) {
    add("count:started:" + type, 1);
    int b = LatencyBuckets.bucketOf(Math.max(0, latenessMs));
    add("lateness:" + b, 1);
    add("lateness:sum", Math.max(0, latenessMs));
    add("lateness:count", 1);
  }

  /** A run ended with {@code event} after {@code durationMs} in the handler. */
  public void finished(String type, Event event, long durationMs) {
    add("count:" + event.field() + ":" + type, 1);
    add("duration:" + type + ":" + LatencyBuckets.bucketOf(durationMs), 1);
    add("duration:" + type + ":sum", durationMs);
    add("duration:" + type + ":count", 1);
  }

  /** An outcome that follows a failed run (retried or dead), counted besides the failure. */
  public void also(String type, Event event) {
    add("count:" + event.field() + ":" + type, 1);
  }

  private void add(String field, long n) {
    counts.computeIfAbsent(field, f -> new LongAdder()).add(n);
  }

  /** Adds what was counted since the last flush to Redis; returns the number of fields sent. */
  public int flush(UnifiedJedis redis, long epochSecond) {
    Map<String, Long> delta = new HashMap<>();
    counts.forEach((field, adder) -> {
      long n = adder.sumThenReset();
      if (n != 0) {
        delta.put(field, n);
      }
    });
    if (delta.isEmpty()) {
      return 0;
    }
    String second = keys.statsSecond(epochSecond);
    try (AbstractPipeline p = redis.pipelined()) {
      delta.forEach((field, n) -> {
        p.hincrBy(keys.stats(), field, n);
        p.hincrBy(second, field, n);
      });
      p.expire(second, SECONDS_KEPT);
      p.sync();
    } catch (RuntimeException e) {
      // Put the counts back so the next flush sends them; metrics lag, they are not lost.
      delta.forEach(this::add);
      throw e;
    }
    return delta.size();
  }
}
