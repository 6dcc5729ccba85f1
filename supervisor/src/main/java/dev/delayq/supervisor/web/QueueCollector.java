package dev.delayq.supervisor.web;

import dev.delayq.metrics.Distribution;
import dev.delayq.metrics.LatencyBuckets;
import dev.delayq.metrics.StatsHash;
import dev.delayq.redis.Admin;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * The metrics of every queue served, read from Redis at scrape time, each series labelled with
 * its queue: job counters per type and the lateness
 * and duration histograms from the stats hash every worker adds to once a second, and the
 * depths of the queue's structures. One scrape covers every worker on every host. Per-type
 * series are bounded by {@link TypeCap}, and every type's counters are there from its first
 * event on, 0 until their own. A series whose stored value cannot be read (a negative count or
 * a non-integer another client planted) is left out and said once ({@link LeftOutSeries}), never
 * failing the scrape.
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
      "rescheduled", "Handler runs that asked to run again later (rescheduleIn).",
      "cancelled", "Handler runs an operator cancelled (cancel of a running job): ended, not retried.",
      "rate_limited", "Handler runs that answered rate limited (rateLimited): back to delayed, no attempt burned.");
  static final List<String> EVENT_ORDER = List.of("enqueued", "started", "succeeded", "failed", "retried", "dead",
      "rescheduled", "cancelled", "rate_limited");

  /** One queue's readers: its keys, its admin gateway and its cap on per-type series. */
  record Source(Keys keys, Admin admin, TypeCap typeCap) {}

  /** What one scrape read of one queue. */
  private record Reading(Labels queue, Admin.Stats stats, Inspector.Flow flow, StatsHash hash,
      Set<String> unreadable) {}

  private final List<Source> sources;
  private final double[] bounds;
  private final LeftOutSeries leftOut = new LeftOutSeries();
  private volatile boolean redisDown;

  QueueCollector(UnifiedJedis redis, Keys keys, Admin admin, TypeCap typeCap) {
    this(List.of(new Source(keys, admin, typeCap)));
  }

  /** The metrics of every queue in {@code sources}, each series labelled with its queue. */
  QueueCollector(List<Source> sources) {
    this.sources = List.copyOf(sources);
    bounds = new double[LatencyBuckets.BOUNDS_MS.length + 1];
    for (int i = 0; i < LatencyBuckets.BOUNDS_MS.length; i++) {
      bounds[i] = LatencyBuckets.BOUNDS_MS[i] / 1000.0;
    }
    bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
  }

  @Override
  public MetricSnapshots collect() {
    List<Reading> readings = new java.util.ArrayList<>();
    GaugeSnapshot.Builder up = GaugeSnapshot.builder().name("delayq_redis_up")
        .help("1 when the supervisor could read the queue from Redis at this scrape.");
    RuntimeException failure = null;
    for (Source source : sources) {
      Labels queue = Labels.of("queue", source.keys().queue());
      try {
        Map<String, String> fields = source.admin().statsFields();
        readings.add(new Reading(queue, source.admin().stats(), source.admin().flow(),
            source.typeCap().apply(StatsHash.parse(fields), EVENT_ORDER), StatsHash.unreadableSeries(fields)));
        up.dataPoint(point(queue, 1));
      } catch (RuntimeException e) {
        failure = e;
        up.dataPoint(point(queue, 0));
      }
    }
    if (failure != null && !redisDown) {
      redisDown = true;
      log.warn("web: Redis unreachable ({}): /metrics shows delayq_redis_up 0 until it is back", failure.toString());
    } else if (failure == null && redisDown) {
      redisDown = false;
      log.info("web: Redis answers again; /metrics has the queue's metrics again");
    }
    MetricSnapshots.Builder out = MetricSnapshots.builder();
    out.metricSnapshot(up.build());
    if (readings.isEmpty()) {
      return out.build();
    }
    for (String event : EVENT_ORDER) {
      CounterSnapshot.Builder c = CounterSnapshot.builder().name("delayq_jobs_" + event).help(EVENTS.get(event));
      for (Reading r : readings) {
        r.hash().counts().getOrDefault(event, Map.of()).forEach((type, n) -> leftOut.add("delayq_jobs_" + event,
            r.queue().add("type", type), r.unreadable().contains("count:" + event + ":" + type),
            () -> CounterDataPointSnapshot.builder().labels(r.queue().add("type", type))
                .value(n).build(), c::dataPoint));
      }
      out.metricSnapshot(c.build());
    }
    HistogramSnapshot.Builder lateness = HistogramSnapshot.builder().name("delayq_job_lateness_seconds")
        .unit(Unit.SECONDS).help("How late jobs started: handler start minus due time.");
    HistogramSnapshot.Builder heldLateness = HistogramSnapshot.builder().name("delayq_job_held_lateness_seconds")
        .unit(Unit.SECONDS).help("How late jobs that a pause held started (kept apart from delayq_job_lateness_seconds).");
    GaugeSnapshot.Builder paused = GaugeSnapshot.builder().name("delayq_paused")
        .help("1 for each paused scope: type=\"*\" is the whole queue, else one job type; on a sharded "
            + "queue the share of its shards that have it (below 1: a pause or resume that failed part way).");
    GaugeSnapshot.Builder held = GaugeSnapshot.builder().name("delayq_held_jobs")
        .help("Due jobs held per type: taken from ready while paused or at its concurrency cap.");
    GaugeSnapshot.Builder waitingForHandler = GaugeSnapshot.builder().name("delayq_jobs_waiting_for_handler")
        .help("Due jobs that no worker they reached had a handler for: they run once a worker with their type "
            + "announces it, or go to dead after queue.handlerWait.");
    HistogramSnapshot.Builder durations = HistogramSnapshot.builder().name("delayq_job_duration_seconds")
        .unit(Unit.SECONDS).help("How long handlers ran, per job type.");
    GaugeSnapshot.Builder depths = GaugeSnapshot.builder().name("delayq_queue_jobs")
        .help("Jobs in each place of the queue: delayed (waiting for their due time), ready (due, "
            + "waiting for a worker), in_flight (claimed by a consumer), dead.");
    GaugeSnapshot.Builder waiting = GaugeSnapshot.builder().name("delayq_jobs_waiting")
        .help("Jobs waiting for other jobs to end (workflows): out of ready until what they wait for ended.");
    GaugeSnapshot.Builder batchesOpen = GaugeSnapshot.builder().name("delayq_batches_open")
        .help("Batches neither finished nor cancelled (open, or closed with jobs pending).");
    GaugeSnapshot.Builder backlog = GaugeSnapshot.builder().name("delayq_queue_backlog_jobs")
        .help("Jobs due and not yet started (due in delayed, plus ready).");
    GaugeSnapshot.Builder overdue = GaugeSnapshot.builder().name("delayq_queue_oldest_overdue_seconds")
        .unit(Unit.SECONDS).help("How long the longest-waiting due job has been due; 0 when none waits.");
    for (Reading r : readings) {
      Labels queue = r.queue();
      leftOut.add("delayq_job_lateness_seconds", queue, r.unreadable().contains("lateness"),
          () -> histogram(queue, r.hash().lateness()), lateness::dataPoint);
      leftOut.add("delayq_job_held_lateness_seconds", queue, r.unreadable().contains("heldLateness"),
          () -> histogram(queue, r.hash().heldLateness()), heldLateness::dataPoint);
      r.flow().paused().keySet().forEach(scope -> paused.dataPoint(point(queue.add("type", scope), 1)));
      r.flow().partlyPaused().forEach((scope, p) ->
          paused.dataPoint(point(queue.add("type", scope), (double) p.shards() / p.of())));
      r.flow().held().forEach((type, n) -> held.dataPoint(point(queue.add("type", type), n)));
      waitingForHandler.dataPoint(point(queue, r.flow().waitingForHandlerTotal()));
      r.hash().durations().forEach((type, d) -> leftOut.add("delayq_job_duration_seconds", queue.add("type", type),
          r.unreadable().contains("duration:" + type), () -> histogram(queue.add("type", type), d),
          durations::dataPoint));
      Inspector.Depths d = r.stats().depths();
      depths.dataPoint(point(queue.add("state", "delayed"), d.delayed()));
      depths.dataPoint(point(queue.add("state", "ready"), d.ready()));
      depths.dataPoint(point(queue.add("state", "in_flight"), d.inFlight()));
      depths.dataPoint(point(queue.add("state", "dead"), d.dead()));
      waiting.dataPoint(point(queue, d.waiting()));
      batchesOpen.dataPoint(point(queue, d.batchesOpen()));
      backlog.dataPoint(point(queue, r.stats().backlog()));
      overdue.dataPoint(point(queue, r.stats().oldestOverdueMs() / 1000.0));
    }
    out.metricSnapshot(lateness.build());
    out.metricSnapshot(heldLateness.build());
    out.metricSnapshot(paused.build());
    out.metricSnapshot(held.build());
    out.metricSnapshot(waitingForHandler.build());
    out.metricSnapshot(durations.build());
    out.metricSnapshot(depths.build());
    out.metricSnapshot(waiting.build());
    out.metricSnapshot(batchesOpen.build());
    out.metricSnapshot(backlog.build());
    out.metricSnapshot(overdue.build());
    return out.build();
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
