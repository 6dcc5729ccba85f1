package dev.delayq.metrics;

import dev.delayq.process.LogText;
import dev.delayq.redis.Keys;
import dev.delayq.redis.Pipelines;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Counts what a worker's consumers do (outcomes per type, lateness, handler duration) in
 * memory, and adds the counts to Redis once a second in one pipeline: into the queue's
 * cumulative {@link Keys#stats()} hash and into the hash of the current second, which live
 * charts read. One scrape of any process then covers every worker on every host.
 *
 * <p>Fields: {@code count:<event>:<type>}, {@code lateness:<bucket>|sum|count},
 * {@code heldLateness:<bucket>|sum|count} (jobs a pause held),
 * {@code duration:<type>:<bucket>|sum|count}; buckets are {@link LatencyBuckets}. Counting is
 * a few uncontended adds on the hot path, with no allocation.
 */
public final class StatsRecorder {
  private static final Logger log = LoggerFactory.getLogger(StatsRecorder.class);
  /** What became of a run. */
  public enum Event {
    STARTED, SUCCEEDED, FAILED, RETRIED, DEAD, RESCHEDULED,
    /** The handler answered "rate limited, try again in X": back to delayed, no attempt burned. */
    RATE_LIMITED,
    /** An operator cancelled the run (cancel of a running job): its end, neither success nor failure. */
    CANCELLED;

    public String field() {
      return name().toLowerCase();
    }
  }

  /** Seconds a per-second hash is kept. */
  public static final int SECONDS_KEPT = 3600;

  private final Keys keys;
  private final Histogram lateness = new Histogram("lateness");
  /** Lateness of jobs a pause held: apart, so a pause does not spoil the lateness figures. */
  private final Histogram heldLateness = new Histogram("heldLateness");
  private final Map<String, TypeCounters> byType = new ConcurrentHashMap<>();

  public StatsRecorder(Keys keys) {
    this.keys = keys;
  }

  /** A handler is starting, {@code latenessMs} after its job was due. */
  public void started(String type, long latenessMs) {
    of(type).events[Event.STARTED.ordinal()].increment();
    lateness.record(Math.max(0, latenessMs));
  }

  /** A handler is starting a job that a pause held (flow control), {@code latenessMs} after it was due. */
  public void startedAfterHold(String type, long latenessMs) {
    of(type).events[Event.STARTED.ordinal()].increment();
    heldLateness.record(Math.max(0, latenessMs));
  }

  /** A run ended with {@code event} after {@code durationMs} in the handler. */
  public void finished(String type, Event event, long durationMs) {
    TypeCounters t = of(type);
    t.events[event.ordinal()].increment();
    t.duration.record(Math.max(0, durationMs));
  }

  /** An outcome besides the run's own end: retried, dead-lettered or rescheduled. */
  public void also(String type, Event event) {
    of(type).events[event.ordinal()].increment();
  }

  private TypeCounters of(String type) {
    TypeCounters t = byType.get(type);
    return t != null ? t : byType.computeIfAbsent(type, TypeCounters::new);
  }

  /** Adds what was counted since the last flush to Redis; returns the number of fields sent. */
  public int flush(UnifiedJedis redis, long epochSecond) {
    Map<String, Long> delta = new HashMap<>();
    lateness.drainInto(delta);
    heldLateness.drainInto(delta);
    for (TypeCounters t : byType.values()) {
      for (Event e : Event.values()) {
        long n = t.events[e.ordinal()].sumThenReset();
        if (n != 0) {
          delta.put("count:" + e.field() + ":" + t.type, n);
        }
      }
      t.duration.drainInto(delta);
    }
    if (delta.isEmpty()) {
      return 0;
    }
    String second = keys.statsSecond(epochSecond);
    Map<String, Response<Long>> added = new HashMap<>();
    try (AbstractPipeline p = Pipelines.open(redis)) {
      delta.forEach((field, n) -> {
        added.put(field, p.hincrBy(keys.stats(), field, n));
        p.hincrBy(second, field, n);
      });
      p.expire(second, SECONDS_KEPT);
      p.sync();
    }
    // On failure the counts of this second are lost: metrics may undercount during a Redis
    // outage, which the outage log already tells; they never hold back the jobs themselves.
    resetUnreadable(redis, added, delta);
    return delta.size();
  }

  /**
   * Sets each cumulative counter whose add was refused (its field holds no integer: another client
   * planted it) to this flush's count, so it counts again from here instead of never again.
   */
  private void resetUnreadable(UnifiedJedis redis, Map<String, Response<Long>> added, Map<String, Long> delta) {
    Map<String, String> reset = new HashMap<>();
    added.forEach((field, r) -> {
      try {
        r.get();
      } catch (JedisDataException e) {
        reset.put(field, Long.toString(delta.get(field)));
      }
    });
    if (!reset.isEmpty()) {
      log.warn("stats: {} counter(s) of {} held no integer and count again from now: {}", reset.size(), keys.stats(),
          LogText.escape(reset.keySet()));
      redis.hset(keys.stats(), reset);
    }
  }

  /** The counters of one job type. */
  private static final class TypeCounters {
    final String type;
    final LongAdder[] events = new LongAdder[Event.values().length];
    final Histogram duration;

    TypeCounters(String type) {
      this.type = type;
      for (int i = 0; i < events.length; i++) {
        events[i] = new LongAdder();
      }
      duration = new Histogram("duration:" + type);
    }
  }

  /** Bucket counts, sum and count of one distribution, under a field prefix. */
  private static final class Histogram {
    final String prefix;
    final LongAdder[] buckets = new LongAdder[LatencyBuckets.BOUNDS_MS.length + 1];
    final LongAdder sum = new LongAdder();
    final LongAdder count = new LongAdder();

    Histogram(String prefix) {
      this.prefix = prefix;
      for (int i = 0; i < buckets.length; i++) {
        buckets[i] = new LongAdder();
      }
    }

    void record(long ms) {
      buckets[LatencyBuckets.bucketOf(ms)].increment();
      sum.add(ms);
      count.increment();
    }

    void drainInto(Map<String, Long> delta) {
      for (int i = 0; i < buckets.length; i++) {
        long n = buckets[i].sumThenReset();
        if (n != 0) {
          delta.put(prefix + ":" + i, n);
        }
      }
      long c = count.sumThenReset();
      if (c != 0) {
        delta.put(prefix + ":count", c);
        delta.put(prefix + ":sum", sum.sumThenReset());
      }
    }
  }
}
