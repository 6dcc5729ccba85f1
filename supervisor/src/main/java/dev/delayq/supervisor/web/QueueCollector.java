package dev.delayq.supervisor.web;

import dev.delayq.metrics.Distribution;
import dev.delayq.metrics.LatencyBuckets;
import dev.delayq.metrics.StatsHash;
import dev.delayq.redis.Admin;
import dev.delayq.redis.Keys;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * The queue's metrics, read from Redis at scrape time: job counters per type and the lateness
 * and duration histograms from the stats hash every worker adds to once a second, and the
 * depths of the queue's structures. One scrape covers every worker on every host. Per-type
 * series are bounded by {@link TypeCap}, and every type's counters are there from its first
 * event on, 0 until their own.
 */
final class QueueCollector implements MultiCollector {
  private static final Logger log = LoggerFactory.getLogger(QueueCollector.class);

  /** The stats hash's events and the help text of their counters (delayq_jobs_<event>_total). */
  static final Map<String, String> EVENTS = Map.of(
      "enqueued", "Jobs accepted by enqueue (duplicates of an existing id not counted).",
      "started", "Handler runs started.",
      "succeeded", "Handler runs that ended the job (done).",
      "failed", "Handler runs that threw or timed out (each then retried or dead-lettered).",
      "retried", "Failed runs put back in delayed for another attempt.",
      "dead", "Jobs dead-lettered (attempts used up, unknown type, malformed record, poison pill).",
      "rescheduled", "Handler runs that asked to run again later (rescheduleIn).");
  static final List<String> EVENT_ORDER =
      List.of("enqueued", "started", "succeeded", "failed", "retried", "dead", "rescheduled");

  private final UnifiedJedis redis;
  private final Keys keys;
  private final Admin admin;
  private final TypeCap typeCap;
  private final Labels queue;
  private final double[] bounds;
  private volatile boolean redisDown;

  QueueCollector(UnifiedJedis redis, Keys keys, Admin admin, TypeCap typeCap) {
    this.redis = redis;
    this.keys = keys;
    this.admin = admin;
    this.typeCap = typeCap;
    this.queue = Labels.of("queue", keys.queue());
    bounds = new double[LatencyBuckets.BOUNDS_MS.length + 1];
    for (int i = 0; i < LatencyBuckets.BOUNDS_MS.length; i++) {
      bounds[i] = LatencyBuckets.BOUNDS_MS[i] / 1000.0;
    }
    bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
  }

  @Override
  public MetricSnapshots collect() {
    Admin.Stats stats;
    StatsHash hash;
    try {
      stats = admin.stats();
      hash = typeCap.apply(StatsHash.parse(admin.statsFields()), EVENT_ORDER);
      if (redisDown) {
        redisDown = false;
        log.info("web: Redis answers again; /metrics has the queue's metrics again");
      }
    } catch (RuntimeException e) {
      if (!redisDown) {
        redisDown = true;
        log.warn("web: Redis unreachable ({}): /metrics shows delayq_redis_up 0 until it is back", e.toString());
      }
      return MetricSnapshots.of(gauge("delayq_redis_up", "1 when the supervisor could read the queue from Redis at this scrape.", 0));
    }
    MetricSnapshots.Builder out = MetricSnapshots.builder();
    out.metricSnapshot(gauge("delayq_redis_up", "1 when the supervisor could read the queue from Redis at this scrape.", 1));
    for (String event : EVENT_ORDER) {
      CounterSnapshot.Builder c = CounterSnapshot.builder().name("delayq_jobs_" + event).help(EVENTS.get(event));
      hash.counts().getOrDefault(event, Map.of()).forEach((type, n) ->
          c.dataPoint(CounterDataPointSnapshot.builder().labels(queue.add("type", type)).value(n).build()));
      out.metricSnapshot(c.build());
    }
    out.metricSnapshot(HistogramSnapshot.builder().name("delayq_job_lateness_seconds").unit(Unit.SECONDS)
        .help("How late jobs started: handler start minus due time.")
        .dataPoint(histogram(queue, hash.lateness())).build());
    HistogramSnapshot.Builder durations = HistogramSnapshot.builder().name("delayq_job_duration_seconds")
        .unit(Unit.SECONDS).help("How long handlers ran, per job type.");
    hash.durations().forEach((type, d) -> durations.dataPoint(histogram(queue.add("type", type), d)));
    out.metricSnapshot(durations.build());

    GaugeSnapshot.Builder depths = GaugeSnapshot.builder().name("delayq_queue_jobs")
        .help("Jobs in each place of the queue: delayed (waiting for their due time), ready (due, "
            + "waiting for a worker), in_flight (claimed by a consumer), dead.");
    depths.dataPoint(point(queue.add("state", "delayed"), stats.depths().delayed()));
    depths.dataPoint(point(queue.add("state", "ready"), stats.depths().ready()));
    depths.dataPoint(point(queue.add("state", "in_flight"), stats.depths().inFlight()));
    depths.dataPoint(point(queue.add("state", "dead"), stats.depths().dead()));
    out.metricSnapshot(depths.build());
    out.metricSnapshot(gauge("delayq_queue_backlog_jobs",
        "Jobs due and not yet started (due in delayed, plus ready).", stats.backlog()));
    out.metricSnapshot(GaugeSnapshot.builder().name("delayq_queue_oldest_overdue_seconds").unit(Unit.SECONDS)
        .help("How long the longest-waiting due job has been due; 0 when none waits.")
        .dataPoint(point(queue, stats.oldestOverdueMs() / 1000.0)).build());
    return out.build();
  }

  private GaugeSnapshot gauge(String name, String help, double value) {
    return GaugeSnapshot.builder().name(name).help(help).dataPoint(point(queue, value)).build();
  }

  private static GaugeDataPointSnapshot point(Labels labels, double value) {
    return GaugeDataPointSnapshot.builder().labels(labels).value(value).build();
  }

  private HistogramDataPointSnapshot histogram(Labels labels, Distribution d) {
    return HistogramDataPointSnapshot.builder().labels(labels)
        .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, d.buckets()))
        .sum(d.sumMs() / 1000.0).build();
  }
}
