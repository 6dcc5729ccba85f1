package dev.delayq.supervisor.web;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The supervisor's own metrics, from its child table as the control thread reports it: restarts,
 * state (one series per possible state, 1 for the current one, so an alert on FATAL never loses
 * its series) and uptime of each child, and the worker pool size asked for.
 */
final class ChildCollector implements MultiCollector {
  static final List<String> STATES =
      List.of("STOPPED", "STARTING", "RUNNING", "BACKOFF", "STOPPING", "EXITED", "FATAL");

  private final Steering steering;

  ChildCollector(Steering steering) {
    this.steering = steering;
  }

  @Override
  public MetricSnapshots collect() {
    Steering.Processes p;
    try {
      p = steering.processes().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      return MetricSnapshots.of(); // the supervisor is stopping or busy: no child metrics this time
    }
    CounterSnapshot.Builder restarts = CounterSnapshot.builder().name("delayq_child_restarts")
        .help("Restarts of each child after it exited abnormally.");
    GaugeSnapshot.Builder state = GaugeSnapshot.builder().name("delayq_child_state")
        .help("1 for the state each child is in, 0 for the others.");
    GaugeSnapshot.Builder uptime = GaugeSnapshot.builder().name("delayq_child_uptime_seconds").unit(Unit.SECONDS)
        .help("How long each child's current process has run; 0 when it has none.");
    for (Steering.ChildRow c : p.children()) {
      Labels labels = Labels.of("child", c.name(), "role", c.role());
      restarts.dataPoint(CounterDataPointSnapshot.builder().labels(labels).value(c.restarts()).build());
      for (String s : STATES) {
        state.dataPoint(GaugeDataPointSnapshot.builder().labels(labels.add("state", s))
            .value(s.equals(c.state()) ? 1 : 0).build());
      }
      uptime.dataPoint(GaugeDataPointSnapshot.builder().labels(labels).value(c.uptimeMs() / 1000.0).build());
    }
    GaugeSnapshot workers = GaugeSnapshot.builder().name("delayq_workers_desired")
        .help("Worker processes the supervisor is asked to run (worker.processes, or the last resize).")
        .dataPoint(GaugeDataPointSnapshot.builder().value(p.workers()).build()).build();
    return MetricSnapshots.of(restarts.build(), state.build(), uptime.build(), workers);
  }
}
