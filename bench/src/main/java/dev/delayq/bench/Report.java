package dev.delayq.bench;

import java.util.List;
import java.util.Map;

/** The table {@code delayq bench} prints, beside the anchors' BullMQ figures. */
final class Report {
  private Report() {}

  @SuppressWarnings("unchecked")
  static String table(Map<String, Object> r) {
    StringBuilder out = new StringBuilder();
    if (r.keySet().stream().anyMatch(m -> !m.equals("machine") && !m.equals("soak") && !m.equals("backlog"))) {
      out.append(String.format("%n%-44s %14s %14s %8s%n", "measure", "delayq", "BullMQ 6.7", "ratio"));
    }
    line(out, r, "enqueue", "enqueue jobs/s (best of batched, 50 in flight)", "jobs_per_s", 44_812);
    line(out, r, "enqueue", "  batched x1000", "batched_jobs_per_s", 30_814);
    line(out, r, "enqueue", "  one by one, 50 in flight", "one_by_one_jobs_per_s", 44_812);
    if (r.get("enqueue") instanceof Map<?, ?> e && e.get("single_call_p99_ms") != null) {
      out.append(String.format("%-44s %14s%n", "  one call alone, 1,000/s: p50/p99/max ms",
          e.get("single_call_p50_ms") + "/" + e.get("single_call_p99_ms") + "/" + e.get("single_call_max_ms")));
    }
    line(out, r, "forward", "forward delayed->ready jobs/s", "jobs_per_s", 0);
    line(out, r, "forward", "  longest script call ms", "longest_call_ms", 0);
    line(out, r, "forward", "  Redis CPU us per job", "redis_us_per_job", 0);
    text(out, r, "enqueue", "  Redis CPU split over the masters (batched)", "redis_cpu_split_pct");
    line(out, r, "enqueue", "  Redis CPU us per job (batched)", "batched_redis_cpu_us_per_job", 0);
    line(out, r, "enqueue", "  Redis CPU us per job (one by one)", "one_by_one_redis_cpu_us_per_job", 0);
    line(out, r, "drain", "drain due no-op jobs/s", "jobs_per_s", 29_577);
    line(out, r, "drain", "  Redis CPU us per job", "redis_cpu_us_per_job", 0);
    text(out, r, "drain", "  Redis CPU split over the masters", "redis_cpu_split_pct");
    if (r.get("drain") instanceof Map<?, ?> d && d.get("redis_usec_per_job_by_command") instanceof Map<?, ?> byCommand) {
      out.append(String.format("%-44s %s%n", "  of which us per job in (commandstats)", byCommand));
    }
    if (r.get("precision") instanceof Map<?, ?> p) {
      Map<String, Object> spread = (Map<String, Object>) p.get("spread");
      Map<String, Object> l = (Map<String, Object>) spread.get("lateness_ms");
      out.append(String.format("%-44s %14s %14s%n", "lateness p50/p90/p99/max ms (2,000 over 10 s)",
          l.get("p50") + "/" + l.get("p90") + "/" + l.get("p99") + "/" + l.get("max"), "52/-/100/106"));
      out.append(String.format("%-44s %14s%n", "  started early", spread.get("early")));
      byShard(out, spread);
      Map<String, Object> s = (Map<String, Object>) p.get("sustained");
      Map<String, Object> sl = (Map<String, Object>) s.get("lateness_ms");
      out.append(String.format("%-44s %14s%n", "lateness p50/p90/p99/max ms, " + p.get("sustained_rate")
          + "/s for " + p.get("sustained_seconds") + " s", sl.get("p50") + "/" + sl.get("p90") + "/" + sl.get("p99")
          + "/" + sl.get("max")));
      byShard(out, s);
      if (p.get("sustained_calls_per_job") instanceof Map<?, ?> calls) {
        out.append(String.format("%-44s %s%n", "  Redis calls per job (commandstats)", calls));
      }
      if (p.get("sustained_backlog") instanceof Map<?, ?> b) {
        out.append(String.format("%-44s %s / %s, %s / %s%n", "  backlog mean/max: due in delayed, in ready",
            b.get("overdue_in_delayed_mean"), b.get("overdue_in_delayed_max"), b.get("ready_mean"), b.get("ready_max")));
      }
      out.append(String.format("%-44s %14s%n", "  CPU us per job, Redis / delayq's JVMs",
          p.get("sustained_redis_cpu_us_per_job") + " / " + p.get("sustained_delayq_cpu_us_per_job")));
    }
    line(out, r, "memory", "Redis bytes per pending job", "bytes_per_job", 838);
    line(out, r, "memory", "  of which delayed (time wheel), per job", "delayed_bytes_per_job", 0);
    line(out, r, "memory", "    wheel buckets (ZSET listpacks), per job", "wheel_buckets_bytes_per_job", 0);
    line(out, r, "memory", "    wheel index and count, per job", "wheel_index_bytes_per_job", 0);
    line(out, r, "memory", "    buckets", "wheel_buckets", 0);
    line(out, r, "memory", "  of which jobs (HASH: id + record), per job", "jobs_hash_bytes_per_job", 0);
    line(out, r, "memory", "  record length, bytes (payload included)", "record_bytes", 0);
    if (r.get("memory") instanceof Map<?, ?> m && m.get("record_head") instanceof String head) {
      out.append("  a record begins: ").append(head).append('\n');
    }
    line(out, r, "memory", "dense (all due in 1 s): bytes per pending job", "dense_bytes_per_job", 0);
    line(out, r, "memory", "  of which delayed (time wheel), per job", "dense_delayed_bytes_per_job", 0);
    line(out, r, "memory", "all due at one ms: bytes per pending job", "one_ms_bytes_per_job", 0);
    line(out, r, "memory", "  of which delayed (time wheel), per job", "one_ms_delayed_bytes_per_job", 0);
    line(out, r, "memory", "Redis bytes per remembered id (idRetention)", "bytes_per_remembered_id", 0);
    line(out, r, "ratelimit", "rate limit: starts/s allowed", "limit_per_s", 0);
    line(out, r, "ratelimit", "  achieved starts/s (first to last start)", "achieved_per_s", 0);
    line(out, r, "ratelimit", "  busiest sliding 1 s window, starts", "busiest_1s_window", 0);
    if (r.get("queues") instanceof Map<?, ?> q) {
      out.append(String.format("%-44s %14s%n", "3 queues 6/3/1: start shares % (first half)",
          q.get("share_pct_critical") + "/" + q.get("share_pct_default") + "/" + q.get("share_pct_low")));
      line(out, r, "queues", "  worst share off its weight, %", "worst_share_off_weight_pct", 0);
      line(out, r, "queues", "  jobs/s over the three (probe stamps batched)", "jobs_per_s", 0);
    }
    if (r.get("pipeline") instanceof Map<?, ?> pl) {
      out.append(String.format("%-44s %s / %s us (p50 / p99)%n", "one command", pl.get("one_command_us_p50"),
          pl.get("one_command_us_p99")));
      out.append(String.format("%-44s %s / %s us, %sx one command (p50)%n",
          "pipeline over " + pl.get("shards") + " shards", pl.get("pipeline_us_p50"), pl.get("pipeline_us_p99"),
          pl.get("pipeline_over_one_p50")));
    }
    if (r.get("browse") instanceof Map<?, ?> b) {
      for (String k : List.of("next_hour_page_ms", "next_hour_rare_type_page_ms", "id_prefix_page_ms", "half_way_page_ms")) {
        Map<?, ?> m = (Map<?, ?>) b.get(k);
        out.append(String.format("%-44s %14s%n", "browse " + b.get("pending_jobs") + ": " + k.replace("_ms", "")
            .replace('_', ' ') + " ms med/max", m.get("median") + "/" + m.get("max")));
      }
    }
    if (r.get("ticks") instanceof Map<?, ?> t) {
      Map<?, ?> l = (Map<?, ?>) t.get("lateness_ms");
      out.append(String.format("%-44s %14s%n", "every-1s schedule, " + t.get("ticks") + " ticks: late ms p50/p90/p99/max",
          l.get("p50") + "/" + l.get("p90") + "/" + l.get("p99") + "/" + l.get("max")));
      out.append(String.format("%-44s %14s%n", "  load average (1 min) at the end", t.get("load_average_1m")));
    }
    line(out, r, "supervisor", "kill -9 worker -> replacement RUNNING ms", "restart_ms", 0);
    line(out, r, "supervisor", "kill -9 worker -> its job running again ms", "rerun_ms", 0);
    line(out, r, "supervisor", "reload --workers 8 from 2 ms", "reload_ms", 0);
    line(out, r, "supervisor", "worker JVM RSS MB (median)", "rss_mb", 0);
    line(out, r, "supervisor", "stop with 8 workers busy (3 s jobs) ms", "stop_ms", 0);
    if (r.get("soak") instanceof Map<?, ?> soak) {
      soak(out, (Map<String, Object>) soak);
    }
    if (r.get("backlog") instanceof Map<?, ?> backlog) {
      backlog(out, (Map<String, Object>) backlog);
    }
    return out.toString();
  }

  /** The backlog's table: each figure on the empty queue, on the backlog, and the change. */
  @SuppressWarnings("unchecked")
  private static void backlog(StringBuilder out, Map<String, Object> b) {
    Map<String, Object> e = (Map<String, Object>) b.get("empty");
    Map<String, Object> f = (Map<String, Object>) b.get("backlog");
    Object pending = b.get("pending");
    out.append(String.format("%nbacklog: %,d pending jobs due over 24 h, beside an empty queue (%,d jobs per "
        + "enqueue and drain figure)%n", ((Number) pending).longValue(), ((Number) b.get("jobs_per_figure")).longValue()));
    out.append(String.format("%-46s %16s %16s %8s%n", "figure", "empty queue", "backlog", "change"));
    compare(out, "enqueue batched jobs/s", e.get("enqueue_batched_jobs_per_s"), f.get("enqueue_batched_jobs_per_s"));
    compare(out, "enqueue one by one, 50 in flight, jobs/s", e.get("enqueue_one_by_one_jobs_per_s"),
        f.get("enqueue_one_by_one_jobs_per_s"));
    compare(out, "enqueue batched, Redis CPU us a job", e.get("enqueue_batched_redis_cpu_us_per_job"),
        f.get("enqueue_batched_redis_cpu_us_per_job"));
    compare(out, "enqueue one by one, Redis CPU us a job", e.get("enqueue_one_by_one_redis_cpu_us_per_job"),
        f.get("enqueue_one_by_one_redis_cpu_us_per_job"));
    compare(out, "forward + drain of jobs due at one ms, jobs/s", e.get("drain_jobs_per_s"), f.get("drain_jobs_per_s"));
    Map<String, Object> le = (Map<String, Object>) e.get("lateness_ms");
    Map<String, Object> lb = (Map<String, Object>) f.get("lateness_ms");
    out.append(String.format("%-46s %16s %16s%n", "lateness p50/p99/max ms (2,000 over 10 s)",
        le.get("p50") + "/" + le.get("p99") + "/" + le.get("max"), lb.get("p50") + "/" + lb.get("p99") + "/" + lb.get("max")));
    Map<String, Object> oe = (Map<String, Object>) e.get("operator_calls");
    Map<String, Object> ob = (Map<String, Object>) f.get("operator_calls");
    for (String call : ob.keySet()) {
      Map<String, Object> ce = (Map<String, Object>) oe.get(call);
      Map<String, Object> cb = (Map<String, Object>) ob.get(call);
      String name = call.replace('_', ' ');
      compare(out, name + ": wall ms", ce.get("wall_ms"), cb.get("wall_ms"));
      out.append(String.format("%-46s %16s %16s%n", "  slowest Redis call us (SLOWLOG)", ce.get("slowest_call_us"),
          cb.get("slowest_call_us")));
      out.append(String.format("%-46s %s | %s%n", "  its command", ce.get("slowest_command"), cb.get("slowest_command")));
      out.append(String.format("%-46s %16s %16s%n", "  calls over " + b.get("slow_log_threshold_us") + " us",
          ce.get("calls_over_threshold"), cb.get("calls_over_threshold")));
      out.append(String.format("%-46s %16s %16s%n", "  calls over 10 ms", ce.get("calls_over_10ms"),
          cb.get("calls_over_10ms")));
      if (cb.containsKey("heap_peak_mb")) {
        out.append(String.format("%-46s %16s %16s%n", "  bench JVM heap peak / live max MB",
            ce.get("heap_peak_mb") + " / " + ce.get("heap_live_max_mb"), cb.get("heap_peak_mb") + " / "
                + cb.get("heap_live_max_mb")));
      }
    }
    f.forEach((key, v) -> {
      if (key.startsWith("bytes_per_job_at_")) {
        out.append(String.format("%-46s %16s %16s%n", "Redis bytes per pending job at " + key.substring(17), "", v));
      }
    });
    out.append(String.format("%-46s %16s %16s%n", "fill: seconds, jobs/s", "", f.get("fill_seconds") + ", "
        + f.get("fill_jobs_per_s")));
  }

  private static void compare(StringBuilder out, String label, Object empty, Object backlog) {
    String change = "";
    if (empty instanceof Number e && backlog instanceof Number b && e.doubleValue() > 0) {
      change = String.format("%+.1f%%", 100 * (b.doubleValue() - e.doubleValue()) / e.doubleValue());
    }
    out.append(String.format("%-46s %16s %16s %8s%n", label, empty, backlog, change));
  }

  /** The soak's table: one row per minute, then the workers, Redis memory and the ledger. */
  @SuppressWarnings("unchecked")
  private static void soak(StringBuilder out, Map<String, Object> s) {
    out.append(String.format("%nsoak: %s s at %s jobs/s, delays 0-%s s, kill -9 of a worker every %s s, "
        + "%s workers x %s threads%n", s.get("duration_s"), s.get("rate"), s.get("max_delay_s"),
        s.get("kill_every_s"), s.get("workers"), s.get("threads")));
    out.append(String.format("%6s %11s %10s %12s %12s %8s %22s %6s %6s%n", "minute", "enqueued/s",
        "started/s", "backlog end", "backlog max", "due", "lateness p50/p99/max", "early", "kills"));
    for (Map<String, Object> m : (List<Map<String, Object>>) s.get("minutes")) {
      out.append(String.format("%6s %11s %10s %12s %12s %8s %22s %6s %6s%n", m.get("minute"),
          m.get("enqueued_per_s"), m.get("started_per_s"), m.get("backlog_end"), m.get("backlog_max"),
          m.get("due"), m.get("p50_ms") + "/" + m.get("p99_ms") + "/" + m.get("max_ms") + " ms",
          m.get("early"), m.get("kills")));
    }
    Map<String, Object> all = (Map<String, Object>) s.get("lateness_ms");
    out.append(String.format("whole run: lateness p50/p99/max %s/%s/%s ms; drain after the last enqueue %s s%n",
        all.get("p50_ms"), all.get("p99_ms"), all.get("max_ms"), s.get("drain_s")));
    List<Map<String, Object>> start = (List<Map<String, Object>>) s.get("workers_at_start");
    List<Map<String, Object>> end = (List<Map<String, Object>>) s.get("workers_at_end");
    for (Map<String, Object> e : end) {
      Map<String, Object> b = start.stream().filter(w -> w.get("name").equals(e.get("name"))).findFirst().orElse(Map.of());
      out.append(String.format("%s: live heap %s -> %s MB, RSS %s -> %s MB (pid %s -> %s, up %s s at the end)%n",
          e.get("name"), b.get("heap_live_mb"), e.get("heap_live_mb"), b.get("rss_mb"), e.get("rss_mb"),
          b.get("pid"), e.get("pid"), e.get("uptime_s")));
    }
    Map<String, Object> mem = (Map<String, Object>) s.get("redis_memory");
    out.append(String.format("Redis used_memory: baseline %s B, after the drain %s B (%+.2f %%; client buffers %s -> %s B)%n",
        mem.get("baseline_bytes"), mem.get("after_drain_bytes"), ((Number) mem.get("change_pct")).doubleValue(),
        mem.get("clients_bytes_before"), mem.get("clients_bytes_after")));
    out.append(String.format("Redis without client buffers, cached scripts (%s -> %s B) and the per-second stats hashes (%s keys "
        + "kept 1 h for the charts, %s B freed when deleted): baseline %s B, after the drain %s B (%+.2f %%): %s; queue keys left %s%n",
        mem.get("scripts_bytes_before"), mem.get("scripts_bytes_after"),
        mem.get("stats_second_keys"), mem.get("stats_second_keys_bytes"), mem.get("without_clients_scripts_and_stats_seconds_before"),
        mem.get("without_clients_scripts_and_stats_seconds_after"),
        ((Number) mem.get("without_clients_scripts_and_stats_seconds_change_pct")).doubleValue(),
        Boolean.TRUE.equals(mem.get("back_to_baseline")) ? "back to baseline (within 5 %)" : "NOT back to baseline",
        mem.get("queue_keys_left")));
    if (mem.get("memory_stats_before_and_after") instanceof Map<?, ?> parts && !parts.isEmpty()) {
      StringBuilder line = new StringBuilder("Redis MEMORY STATS before -> after the drain (stats hashes deleted):");
      parts.forEach((part, v) -> line.append(' ').append(part).append(' ')
          .append(((List<?>) v).get(0)).append(" -> ").append(((List<?>) v).get(1)).append(';'));
      out.append(line.substring(0, line.length() - 1)).append(System.lineSeparator());
    }
    out.append(String.format("ledger: enqueued %s, ran %s, lost %s, duplicates %s (%s re-run at a higher "
        + "attempt after a kill, %s at the same attempt), dead %s, invariant breaches %s%n",
        s.get("enqueued"), s.get("ran"), s.get("lost"), s.get("duplicates"),
        s.get("duplicates_at_a_higher_attempt"), s.get("duplicates_at_the_same_attempt"), s.get("dead"),
        s.get("consistency_breaches")));
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

  /** A sharded queue's lateness per shard (p50/p90/p99/max), when the part has it. */
  private static void byShard(StringBuilder out, Map<String, Object> part) {
    if (part.get("lateness_ms_by_shard") instanceof List<?> shards) {
      StringBuilder v = new StringBuilder();
      for (Object o : shards) {
        Map<?, ?> l = (Map<?, ?>) o;
        v.append(v.length() == 0 ? "" : "  ").append(l.get("p50")).append('/').append(l.get("p90"))
            .append('/').append(l.get("p99")).append('/').append(l.get("max"));
      }
      out.append(String.format("%-44s %s%n", "  per shard", v));
    }
  }
}
