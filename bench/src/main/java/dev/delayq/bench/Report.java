package dev.delayq.bench;

import java.util.List;
import java.util.Map;

/** The table {@code delayq bench} prints, beside the anchors' BullMQ figures. */
final class Report {
  private Report() {}

  @SuppressWarnings("unchecked")
  static String table(Map<String, Object> r) {
    StringBuilder out = new StringBuilder();
    out.append(String.format("%n%-44s %14s %14s %8s%n", "measure", "delayq", "BullMQ 6.7", "ratio"));
    line(out, r, "enqueue", "enqueue jobs/s (best of batched, 50 in flight)", "jobs_per_s", 44_812);
    line(out, r, "enqueue", "  batched x1000", "batched_jobs_per_s", 30_814);
    line(out, r, "enqueue", "  one by one, 50 in flight", "one_by_one_jobs_per_s", 44_812);
    line(out, r, "forward", "forward delayed->ready jobs/s", "jobs_per_s", 0);
    line(out, r, "forward", "  longest script call ms", "longest_call_ms", 0);
    text(out, r, "enqueue", "  Redis CPU split over the masters (batched)", "redis_cpu_split_pct");
    line(out, r, "enqueue", "  Redis CPU us per job (batched)", "batched_redis_cpu_us_per_job", 0);
    line(out, r, "drain", "drain due no-op jobs/s", "jobs_per_s", 29_577);
    line(out, r, "drain", "  Redis CPU us per job", "redis_cpu_us_per_job", 0);
    text(out, r, "drain", "  Redis CPU split over the masters", "redis_cpu_split_pct");
    if (r.get("precision") instanceof Map<?, ?> p) {
      Map<String, Object> spread = (Map<String, Object>) p.get("spread");
      Map<String, Object> l = (Map<String, Object>) spread.get("lateness_ms");
      out.append(String.format("%-44s %14s %14s%n", "lateness p50/p90/p99/max ms (2,000 over 10 s)",
          l.get("p50") + "/" + l.get("p90") + "/" + l.get("p99") + "/" + l.get("max"), "52/-/100/106"));
      out.append(String.format("%-44s %14s%n", "  started early", spread.get("early")));
      Map<String, Object> s = (Map<String, Object>) p.get("sustained");
      Map<String, Object> sl = (Map<String, Object>) s.get("lateness_ms");
      out.append(String.format("%-44s %14s%n", "lateness p50/p90/p99/max ms, sustained "
          + p.get("sustained_rate") + "/s", sl.get("p50") + "/" + sl.get("p90") + "/" + sl.get("p99")
          + "/" + sl.get("max")));
    }
    line(out, r, "memory", "Redis bytes per pending job", "bytes_per_job", 838);
    line(out, r, "memory", "Redis bytes per remembered id (idRetention)", "bytes_per_remembered_id", 0);
    line(out, r, "ratelimit", "rate limit: starts/s allowed", "limit_per_s", 0);
    line(out, r, "ratelimit", "  achieved starts/s (first to last start)", "achieved_per_s", 0);
    line(out, r, "ratelimit", "  busiest sliding 1 s window, starts", "busiest_1s_window", 0);
    if (r.get("browse") instanceof Map<?, ?> b) {
      for (String k : List.of("next_hour_page_ms", "next_hour_rare_type_page_ms", "id_prefix_page_ms", "half_way_page_ms")) {
        Map<?, ?> m = (Map<?, ?>) b.get(k);
        out.append(String.format("%-44s %14s%n", "browse " + b.get("pending_jobs") + ": " + k.replace("_ms", "")
            .replace('_', ' ') + " ms med/max", m.get("median") + "/" + m.get("max")));
      }
    }
    if (r.get("ticks") instanceof Map<?, ?> t) {
      Map<?, ?> l = (Map<?, ?>) t.get("lateness_ms");
      out.append(String.format("%-44s %14s%n", "every-1s schedule, " + t.get("ticks") + " ticks: late ms p50/p99/max",
          l.get("p50") + "/" + l.get("p99") + "/" + l.get("max")));
      out.append(String.format("%-44s %14s%n", "  load average (1 min) at the end", t.get("load_average_1m")));
    }
    line(out, r, "supervisor", "kill -9 worker -> replacement RUNNING ms", "restart_ms", 0);
    line(out, r, "supervisor", "kill -9 worker -> its job running again ms", "rerun_ms", 0);
    line(out, r, "supervisor", "reload --workers 8 from 2 ms", "reload_ms", 0);
    line(out, r, "supervisor", "worker JVM RSS MB (median)", "rss_mb", 0);
    line(out, r, "supervisor", "stop with 8 workers busy (3 s jobs) ms", "stop_ms", 0);
    return out.toString();
  }

  private static void text(StringBuilder out, Map<String, Object> r, String measure, String label, String key) {
    if (r.get(measure) instanceof Map<?, ?> m && m.get(key) != null) {
      out.append(String.format("%-44s %29s%n", label, m.get(key)));
    }
  }

  private static void line(StringBuilder out, Map<String, Object> r, String measure, String label,
      String key, double bullmq) {
    if (!(r.get(measure) instanceof Map<?, ?> m) || !(m.get(key) instanceof Number v)) {
      return;
    }
    String ratio = bullmq > 0 ? String.format("%.2fx", v.doubleValue() / bullmq) : "";
    out.append(String.format("%-44s %14s %14s %8s%n", label, v, bullmq > 0 ? Long.toString((long) bullmq) : "-", ratio));
  }
}
