package dev.delayq.supervisor.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayq.redis.Admin;
import dev.delayq.redis.DeadBrowser;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Workflows;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The dashboard's reads: {@code GET /api/status} (with the open batches), {@code /api/series},
 * {@code /api/dead} and {@code /api/forecast}. Runs on the web threads; reads Redis and asks the supervisor's control
 * thread for its child table, never touching it.
 */
final class ReadApi {
  /** Open batches the status carries: the dashboard's table is a glance, {@code delayq batch list} the whole. */
  static final int BATCHES_SHOWN = 20;

  private final Steering steering;
  private final Admin admin;
  private final DeadBrowser deadJobs;
  private final Series series;
  private final DepthHistory depths;
  private final LongSupplier clockMs;
  private final List<String> queues;

  /**
   * {@code deadJobs}: the dead list, its payloads cut in Redis; {@code queues}: every queue the
   * system serves, which the dashboard's picker offers.
   */
  ReadApi(Steering steering, Admin admin, DeadBrowser deadJobs, Series series, DepthHistory depths,
      LongSupplier clockMs, List<String> queues) {
    this.queues = List.copyOf(queues);
    this.steering = steering;
    this.admin = admin;
    this.deadJobs = deadJobs;
    this.series = series;
    this.depths = depths;
    this.clockMs = clockMs;
  }

  /** The children and the queue at a glance. */
  ObjectNode status() {
    Steering.Processes p = Http.await(steering.processes());
    long now = clockMs.getAsLong();
    ObjectNode out = Http.ok().put("time", now).put("queue", admin.keys().queue())
        .put("supervisorPid", p.supervisorPid()).put("workers", p.workers());
    out.set("children", Http.JSON.valueToTree(p.children()));
    out.set("queues", Http.JSON.valueToTree(queues));
    try {
      Admin.Stats s = admin.stats();
      depths.add(now / 1000, s.depths());
      ObjectNode stats = out.putObject("stats");
      stats.set("depths", Http.JSON.valueToTree(s.depths()));
      stats.put("backlog", s.backlog()).put("oldestOverdueMs", s.oldestOverdueMs())
          .put("jobsPerSecond", s.jobsPerSecond()).put("startedLastMinute", s.startedLastMinute());
      stats.set("latenessP50Ms", Http.JSON.valueToTree(s.latenessP50Ms()));
      stats.set("latenessP99Ms", Http.JSON.valueToTree(s.latenessP99Ms()));
      stats.set("counters", Http.JSON.valueToTree(s.counters()));
      Inspector.Flow flow = admin.flow();
      ObjectNode f = stats.putObject("flow");
      f.set("paused", Http.JSON.valueToTree(flow.paused()));
      f.set("held", Http.JSON.valueToTree(flow.held()));
      f.set("partlyPaused", Http.JSON.valueToTree(flow.partlyPaused()));
      f.set("waitingForHandler", Http.JSON.valueToTree(flow.waitingForHandler()));
      batches(stats.putArray("batches"), s.depths().batchesOpen());
    } catch (RuntimeException e) {
      out.putNull("stats");
      out.put("redisError", "Redis unreachable: " + e.getMessage());
    }
    return out;
  }

  /**
   * The open batches, oldest first, at most {@value #BATCHES_SHOWN}, with their counts; no read
   * at all on a queue with none open (the depths counted them).
   */
  private void batches(ArrayNode out, long open) {
    if (open == 0) {
      return;
    }
    for (Workflows.Batch b : admin.openBatches(BATCHES_SHOWN)) {
      out.addObject().put("id", b.id()).put("state", b.state()).put("total", b.total()).put("pending", b.pending())
          .put("done", b.done()).put("dead", b.dead()).put("cancelled", b.cancelled()).put("createdAt", b.createdAt());
    }
  }

  /** Throughput and lateness per second, and the depth samples, over the last {@code seconds}. */
  ObjectNode series(int seconds) {
    long nowSecond = clockMs.getAsLong() / 1000;
    ObjectNode out = Http.ok().put("now", nowSecond);
    out.set("points", Http.JSON.valueToTree(series.last(nowSecond, seconds)));
    out.set("depths", Http.JSON.valueToTree(depths.since(nowSecond - seconds)));
    return out;
  }

  /** The newest dead jobs with their errors; payloads cut to a preview in Redis, with their sizes. */
  ObjectNode dead(String type, int limit) {
    List<DeadBrowser.Row> jobs = deadJobs.newest(type, limit);
    ObjectNode out = Http.ok();
    ArrayNode list = out.putArray("jobs");
    for (DeadBrowser.Row j : jobs) {
      ObjectNode o = list.addObject().put("id", j.id()).put("type", j.type()).put("deadAt", j.deadAt())
          .put("attempt", j.attempt()).put("maxAttempts", j.maxAttempts()).put("lastError", j.lastError());
      JobApi.preview(o, j.payload(), j.payloadBytes(), j.payloadCut());
    }
    return out;
  }

  /** Jobs falling due per minute over the next {@code minutes} (Redis clock). */
  ObjectNode forecast(int minutes) {
    long now = admin.redisNowMs();
    List<Long> counts = admin.dueForecast(Duration.ofMinutes(minutes), Duration.ofMinutes(1));
    ObjectNode out = Http.ok().put("nowMs", now).put("stepMs", 60_000);
    out.set("counts", Http.JSON.valueToTree(counts));
    return out;
  }
}
