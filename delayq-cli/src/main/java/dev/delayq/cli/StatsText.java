package dev.delayq.cli;

import dev.delayq.metrics.LatencyBuckets;
import dev.delayq.process.LogText;
import dev.delayq.redis.Admin;
import dev.delayq.redis.Inspector;
import java.util.List;
import java.util.Map;

/** The text form of {@link Admin.Stats}: the figures, then a table of counts per job type. */
final class StatsText {
  private static final List<String> EVENTS =
      List.of("enqueued", "started", "succeeded", "failed", "retried", "dead", "rescheduled", "cancelled");

  private StatsText() {}

  static String render(String queue, Admin.Stats s) {
    return render(queue, s, new Inspector.Flow(Map.of(), Map.of()));
  }

  /** With flow control's state: what is paused since when, and how many jobs are held per type. */
  static String render(String queue, Admin.Stats s, Inspector.Flow flow) {
    StringBuilder b = new StringBuilder();
    b.append("queue ").append(queue).append(" at ").append(Formats.instant(s.redisNowMs())).append(" (Redis time)\n");
    b.append(String.format("  delayed %d   ready %d   in flight %d   dead %d",
        s.depths().delayed(), s.depths().ready(), s.depths().inFlight(), s.depths().dead()));
    // workflows' figures only on a queue that has any: a queue of plain jobs reads as before
    if (s.depths().waiting() > 0 || s.depths().batchesOpen() > 0) {
      b.append(String.format("   waiting %d   batches open %d", s.depths().waiting(), s.depths().batchesOpen()));
    }
    b.append('\n');
    if (!flow.paused().isEmpty() || !flow.held().isEmpty() || !flow.partlyPaused().isEmpty()) {
      b.append("  flow:");
      flow.paused().forEach((scope, since) -> b.append(' ').append(scopeName(scope))
          .append(" paused since ").append(Formats.instant(since)).append(';'));
      // a pause or resume that failed part way: its jobs still start on the other shards
      flow.partlyPaused().forEach((scope, p) -> b.append(' ').append(scopeName(scope)).append(' ').append(p)
          .append(" since ").append(Formats.instant(p.sinceMs())).append(" (pause or resume it again to finish);"));
      flow.held().forEach((type, n) -> b.append(' ').append(LogText.escape(type)).append(" holds ").append(n).append(';'));
      b.setLength(b.length() - 1);
      b.append('\n');
    }
    if (!flow.waitingForHandler().isEmpty()) {
      // due jobs no worker they reached could run: they run once a worker with the type announces it
      b.append("  waiting for a handler:");
      flow.waitingForHandler().forEach((type, n) -> b.append(' ').append(LogText.escape(type)).append(' ').append(n).append(','));
      b.setLength(b.length() - 1);
      b.append(" (no live worker it reached runs the type; dead after queue.handlerWait)\n");
    }
    b.append(String.format("  backlog %d due, not started", s.backlog()));
    if (s.oldestOverdueMs() > 0) {
      b.append("; oldest overdue by ").append(Formats.span(s.oldestOverdueMs()));
    }
    b.append('\n');
    b.append(String.format("  last minute: %.2f jobs/s; ", s.jobsPerSecond()));
    if (s.latenessP50Ms() == null) {
      b.append("no job started\n");
    } else {
      b.append("lateness p50 ").append(bound(s.latenessP50Ms())).append(", p99 ")
          .append(bound(s.latenessP99Ms())).append(" (").append(s.startedLastMinute()).append(" started)\n");
    }
    if (!s.counters().isEmpty()) {
      int width = Math.max(4, s.counters().keySet().stream().mapToInt(t -> LogText.escape(t).length()).max().orElse(4));
      b.append(String.format("  %-" + width + "s", "type"));
      for (String e : EVENTS) {
        b.append(String.format(" %11s", e));
      }
      b.append('\n');
      for (Map.Entry<String, Map<String, Long>> t : s.counters().entrySet()) {
        b.append(String.format("  %-" + width + "s", LogText.escape(t.getKey())));
        for (String e : EVENTS) {
          b.append(String.format(" %11d", t.getValue().getOrDefault(e, 0L)));
        }
        b.append('\n');
      }
    }
    return b.toString();
  }

  private static String scopeName(String scope) {
    return Admin.WHOLE_QUEUE.equals(scope) ? "queue" : LogText.escape(scope);
  }

  /** "<= 25ms"; the last bound stands for the overflow bucket too, so it only says "> 10s". */
  static String bound(long ms) {
    long[] bounds = LatencyBuckets.BOUNDS_MS;
    if (ms >= bounds[bounds.length - 1]) {
      return "> " + Formats.span(bounds[bounds.length - 2]);
    }
    return "<= " + Formats.span(ms);
  }
}
