package dev.delayq.supervisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/** The human form of {@code status}: one line per child, then the queue depths. */
final class StatusText {
  private StatusText() {}

  /** "queue: 3 delayed, ...", then its pauses and held jobs, if any. */
  private static void queueLines(StringBuilder out, String label, JsonNode q, JsonNode flow) {
    out.append(String.format("%s: %d delayed, %d ready, %d in flight, %d dead", label,
        q.path("delayed").asLong(), q.path("ready").asLong(), q.path("inFlight").asLong(), q.path("dead").asLong()));
    // workflows' figures only on a queue that has any: a queue of plain jobs reads as before
    if (q.path("waiting").asLong() > 0 || q.path("batchesOpen").asLong() > 0) {
      out.append(String.format(", %d waiting for other jobs, %d batches open", q.path("waiting").asLong(),
          q.path("batchesOpen").asLong()));
    }
    out.append('\n');
    StringBuilder f = new StringBuilder();
    flow.path("paused").fieldNames().forEachRemaining(scope ->
        f.append(f.length() == 0 ? "" : ", ").append(scope.equals("*") ? "the whole queue" : dev.delayq.process.LogText.escape(scope)));
    if (f.length() > 0) {
      out.append("paused: ").append(f).append('\n');
    }
    // a pause or resume of a sharded queue that failed part way: say so, and how to finish it
    flow.path("partlyPaused").fields().forEachRemaining(e -> out.append("partly paused: ")
        .append(e.getKey().equals("*") ? "the whole queue" : dev.delayq.process.LogText.escape(e.getKey()))
        .append(" on ").append(e.getValue().path("shards").asInt()).append(" of ").append(e.getValue().path("of").asInt())
        .append(" shards (pause or resume it again to finish)\n"));
    StringBuilder h = new StringBuilder();
    flow.path("held").fields().forEachRemaining(e ->
        h.append(h.length() == 0 ? "" : ", ").append(dev.delayq.process.LogText.escape(e.getKey())).append(' ').append(e.getValue().asLong()));
    if (h.length() > 0) {
      out.append("held: ").append(h).append('\n');
    }
    StringBuilder w = new StringBuilder();
    flow.path("waitingForHandler").fields().forEachRemaining(e ->
        w.append(w.length() == 0 ? "" : ", ").append(dev.delayq.process.LogText.escape(e.getKey())).append(' ').append(e.getValue().asLong()));
    if (w.length() > 0) {
      out.append("waiting for a handler: ").append(w).append('\n');
    }
  }

  static String format(JsonNode answer) {
    JsonNode status = answer.path("status");
    StringBuilder out = new StringBuilder();
    out.append(String.format("%-12s %-10s %-8s %-9s %-9s %-9s %s%n",
        "NAME", "ROLE", "PID", "STATE", "UPTIME", "RESTARTS", "LAST EXIT"));
    for (JsonNode c : status.path("children")) {
      out.append(String.format("%-12s %-10s %-8s %-9s %-9s %-9d %s%n",
          c.path("name").asText(), c.path("role").asText(),
          c.path("pid").isNull() ? "-" : c.path("pid").asText(),
          c.path("state").asText(), uptime(c.path("uptimeMs").asLong()), c.path("restarts").asInt(),
          c.path("lastExitCode").isNull() ? "-" : c.path("lastExitCode").asText()));
    }
    JsonNode q = status.path("queue");
    if (status.path("queues").isArray()) {
      for (JsonNode each : status.path("queues")) {
        queueLines(out, "queue " + dev.delayq.process.LogText.escape(each.path("name").asText()), each, each.path("flow"));
      }
    } else if (q.isObject()) {
      queueLines(out, "queue", q, status.path("flow"));
    } else {
      out.append("queue: unknown (").append(answer.path("queueError").asText("Redis unreachable")).append(")\n");
    }
    out.append("supervisor pid ").append(answer.path("pid").asText()).append('\n');
    if (answer.hasNonNull("dashboard")) {
      out.append("dashboard ").append(answer.path("dashboard").asText()).append('\n');
    }
    return out.toString();
  }

  static String uptime(long ms) {
    if (ms <= 0) {
      return "-";
    }
    long s = ms / 1000;
    if (s < 60) {
      return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    if (s < 3600) {
      return (s / 60) + "m" + (s % 60) + "s";
    }
    if (s < 86400) {
      return (s / 3600) + "h" + (s % 3600 / 60) + "m";
    }
    return (s / 86400) + "d" + (s % 86400 / 3600) + "h";
  }
}
