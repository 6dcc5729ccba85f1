package dev.delayq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.JobRequest;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * {@code delayq bench soak}: enqueues at a steady rate for a long time, delays spread evenly
 * over 0 to maxDelay, while one worker is killed with SIGKILL at every killEvery; then drains.
 * Every job is a bench_probe carrying a sequence number, so the {@link SoakLedger} counts lost
 * and duplicated jobs exactly, and how late each started, minute by minute. Around the run it
 * reads what could leak: every worker's live heap (after a full GC) and RSS, and Redis memory
 * before any job and after the drain.
 */
final class SoakRun {
  private final Measures measures;
  private final BenchRedis redis;

  SoakRun(Measures measures) {
    this.measures = measures;
    this.redis = measures.redis();
  }

  Map<String, Object> run(Duration duration, int rate, Duration maxDelay, Duration killEvery,
      int workers, int threads) throws Exception {
    Measures.Queue q = measures.freshQueue();
    String log = "bench:soak:" + q.name();
    try (SupervisorRun supervisor = measures.supervisor(q, workers, threads)) {
      measures.awaitConsumers(q, workers * threads);
      List<Map<String, Object>> workersAtStart = workerFigures(supervisor);
      Map<String, String> baselineMemory = redis.memoryInfo();
      long t0 = System.currentTimeMillis();
      int minutes = (int) ((duration.toMillis() + maxDelay.toMillis()) / 60_000) + 3;
      SoakLedger ledger = new SoakLedger(redis.redis(), log, t0, minutes);
      Thread ledgerThread = new Thread(ledger::run, "soak-ledger");
      ledgerThread.setDaemon(true);
      ledgerThread.start();

      long[] enqueued = new long[minutes];
      long[] backlogMax = new long[minutes];
      long[] backlogEnd = new long[minutes];
      int[] kills = new int[minutes];
      List<Map<String, Object>> killLog = new ArrayList<>();
      long total = duration.toSeconds() * rate;
      long sent = 0;
      long nextKill = t0 + killEvery.toMillis();
      long nextSample = t0;
      long startNanos = System.nanoTime();
      while (sent < total) {
        long now = System.currentTimeMillis();
        int minute = (int) ((now - t0) / 60_000);
        if (now >= nextKill && now - t0 < duration.toMillis()) {
          killLog.add(killOneWorker(supervisor, now - t0));
          kills[minute]++;
          nextKill += killEvery.toMillis();
        }
        if (now >= nextSample) {
          sampleBacklog(q, minute, backlogMax, backlogEnd);
          nextSample += 1000;
        }
        long shouldHave = Math.min(total, (System.nanoTime() - startNanos) * rate / 1_000_000_000L);
        if (shouldHave > sent) {
          List<JobRequest> chunk = new ArrayList<>((int) (shouldHave - sent));
          for (long seq = sent; seq < shouldHave; seq++) {
            chunk.add(JobRequest.delay("bench_probe", "{\"log\":\"" + log + "\",\"seq\":" + seq + "}",
                Duration.ofMillis(ThreadLocalRandom.current().nextLong(maxDelay.toMillis() + 1))));
          }
          q.producer().enqueueAll(chunk);
          enqueued[minute] += chunk.size();
          sent = shouldHave;
        } else {
          Thread.sleep(1);
        }
      }

      // drain: every job due by now + maxDelay; give the last kill's recovery time on top
      long drainDeadline = System.currentTimeMillis() + maxDelay.toMillis() + 120_000;
      while ((ledger.ran() < total || measures.records(q) > 0)
          && System.currentTimeMillis() < drainDeadline) {
        long now = System.currentTimeMillis();
        if (now >= nextSample) {
          sampleBacklog(q, (int) Math.min(minutes - 1, (now - t0) / 60_000), backlogMax, backlogEnd);
          nextSample += 1000;
        }
        Thread.sleep(20);
      }
      long drainedAt = System.currentTimeMillis();
      sampleBacklog(q, (int) Math.min(minutes - 1, (drainedAt - t0) / 60_000), backlogMax, backlogEnd);
      ledger.stop();
      ledgerThread.join(10_000);

      List<Map<String, Object>> workersAtEnd = workerFigures(supervisor);
      int breaches = new InvariantCheck(redis.redis(), q.keys()).breaches().size();
      long dead = new Inspector(redis.redis(), q.keys()).depths().dead();
      redis.redis().del(log);
      long slowlogEntries = redis.slowlogLength();
      Map<String, String> afterMemory = redis.memoryInfo();
      List<String> queueKeys = queueKeys(q);

      Map<String, Object> out = new LinkedHashMap<>();
      out.put("duration_s", duration.toSeconds());
      out.put("rate", rate);
      out.put("max_delay_s", maxDelay.toSeconds());
      out.put("kill_every_s", killEvery.toSeconds());
      out.put("workers", workers);
      out.put("threads", threads);
      out.put("enqueued", total);
      out.put("ran", ledger.ran());
      out.put("lost", total - ledger.ran());
      out.put("duplicates", ledger.duplicates());
      out.put("duplicates_at_a_higher_attempt", ledger.duplicates() - ledger.sameAttemptTwice());
      out.put("duplicates_at_the_same_attempt", ledger.sameAttemptTwice());
      out.put("dead", dead);
      out.put("consistency_breaches", breaches);
      out.put("drain_s", Measures.round2((drainedAt - t0 - duration.toMillis()) / 1000.0));
      out.put("lateness_ms", ledger.overall());
      List<Map<String, Object>> rows = new ArrayList<>();
      int lastMinute = (int) Math.min(minutes - 1, (drainedAt - t0) / 60_000);
      for (int m = 0; m <= lastMinute; m++) {
        Map<String, Object> row = new LinkedHashMap<>();
        // the last minute is cut short by the end of the drain: rates over the seconds it had
        double seconds = Math.max(1, Math.min(60, (drainedAt - t0) / 1000.0 - m * 60));
        row.put("minute", m);
        row.put("seconds", Math.round(seconds));
        row.put("enqueued_per_s", Math.round(enqueued[m] / seconds));
        row.put("started_per_s", Math.round(ledger.startedIn(m) / seconds));
        row.put("backlog_end", backlogEnd[m]);
        row.put("backlog_max", backlogMax[m]);
        row.put("due", ledger.dueIn(m));
        row.putAll(ledger.latenessIn(m));
        row.put("kills", kills[m]);
        rows.add(row);
      }
      out.put("minutes", rows);
      out.put("kill_log", killLog);
      out.put("workers_at_start", workersAtStart);
      out.put("workers_at_end", workersAtEnd);
      Map<String, Object> memory = memory(baselineMemory, afterMemory, queueKeys);
      memory.put("slowlog_entries_reset", slowlogEntries);
      out.put("redis_memory", memory);
      return out;
    } finally {
      redis.redis().del(log);
      measures.clear(q);
    }
  }

  /** SIGKILL to the last worker by name: the first one lives through the run, for its heap. */
  private Map<String, Object> killOneWorker(SupervisorRun supervisor, long atMs) throws Exception {
    JsonNode victim = null;
    for (JsonNode c : supervisor.children()) {
      if (c.path("role").asText().equals("worker") && c.path("state").asText().equals("RUNNING")
          && (victim == null || c.path("name").asText().compareTo(victim.path("name").asText()) > 0)) {
        victim = c;
      }
    }
    Map<String, Object> kill = new LinkedHashMap<>();
    kill.put("at_s", Measures.round2(atMs / 1000.0));
    if (victim == null) {
      kill.put("worker", "none RUNNING");
      return kill;
    }
    long pid = victim.path("pid").asLong();
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    kill.put("worker", victim.path("name").asText());
    kill.put("pid", pid);
    return kill;
  }

  private void sampleBacklog(Measures.Queue q, int minute, long[] max, long[] end) {
    long pending = measures.records(q);
    max[minute] = Math.max(max[minute], pending);
    end[minute] = pending;
  }

  /** Name, pid, live heap after a full GC and RSS of every worker. */
  private List<Map<String, Object>> workerFigures(SupervisorRun supervisor) throws Exception {
    List<Map<String, Object>> out = new ArrayList<>();
    for (JsonNode c : supervisor.children()) {
      if (!c.path("role").asText().equals("worker")) {
        continue;
      }
      long pid = c.path("pid").asLong();
      Map<String, Object> w = new LinkedHashMap<>();
      w.put("name", c.path("name").asText());
      w.put("pid", pid);
      w.put("uptime_s", c.path("uptimeMs").asLong() / 1000);
      w.put("heap_live_mb", Measures.round2(JvmHeap.liveMb(pid)));
      w.put("rss_mb", Measures.round2(SupervisorRun.rssMb(pid)));
      out.add(w);
    }
    return out;
  }

  /**
   * Redis memory before any job and after the drain: used_memory as a whole, and without what
   * moves for other reasons than jobs: the client buffers (they follow the connections a
   * replaced worker and the probes open) and the per-second stats hashes, kept
   * {@code StatsRecorder.SECONDS_KEPT} for the dashboard's charts, which the run adds on
   * purpose and which expire by themselves, and the script cache. The baseline verdict is on
   * that remainder.
   *
   * <p>What the stats hashes cost is measured by deleting them (the run's queue is cleared right
   * after anyway) and reading used_memory again, not by summing MEMORY USAGE: that leaves out
   * each key's entry in the keyspace's expires table and the keyspace's own growth, about 100 B
   * a key, 60 KB for a 10-minute run, which is more than the 5 % band.
   */
  private Map<String, Object> memory(Map<String, String> before, Map<String, String> after, List<String> keys)
      throws InterruptedException {
    long used0 = Long.parseLong(before.get("used_memory"));
    long used1 = Long.parseLong(after.get("used_memory"));
    long clients0 = Long.parseLong(before.get("mem_clients_normal"));
    long clients1 = Long.parseLong(after.get("mem_clients_normal"));
    long statsByUsage = 0;
    List<String> statsKeys = new ArrayList<>();
    Map<String, Long> others = new LinkedHashMap<>();
    for (String key : keys) {
      if (key.matches(".*:stats:\\d+$")) {
        Long b = redis.redis().memoryUsage(key);
        statsByUsage += b == null ? 0 : b;
        statsKeys.add(key);
      } else {
        others.put(key, redis.redis().memoryUsage(key));
      }
    }
    for (int i = 0; i < statsKeys.size(); i += 500) {
      redis.redis().del(statsKeys.subList(i, Math.min(statsKeys.size(), i + 500)).toArray(String[]::new));
    }
    Thread.sleep(500); // serverCron (hz 10) shrinks the keyspace tables the keys left
    Map<String, String> withoutStats = redis.memoryInfo();
    // the script cache grows by a script's body as a process first needs it (a take-back at the
    // first kill, a trim): a fixed cost per script, ~8 KB each, not left behind by jobs
    long scripts0 = Long.parseLong(before.getOrDefault("used_memory_scripts_eval", "0"));
    long kept0 = used0 - clients0 - scripts0;
    long kept1 = Long.parseLong(withoutStats.get("used_memory")) - Long.parseLong(withoutStats.get("mem_clients_normal"))
        - Long.parseLong(withoutStats.getOrDefault("used_memory_scripts_eval", "0"));
    long statsSeconds = used1 - clients1 - Long.parseLong(after.getOrDefault("used_memory_scripts_eval", "0")) - kept1;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("baseline_bytes", used0);
    m.put("after_drain_bytes", used1);
    m.put("change_pct", pct(used1 - used0, used0));
    m.put("clients_bytes_before", clients0);
    m.put("clients_bytes_after", clients1);
    m.put("scripts_bytes_before", scripts0);
    m.put("scripts_bytes_after", Long.parseLong(withoutStats.getOrDefault("used_memory_scripts_eval", "0")));
    m.put("stats_second_keys", statsKeys.size());
    m.put("stats_second_keys_bytes", statsSeconds);
    m.put("stats_second_keys_memory_usage_bytes", statsByUsage);
    m.put("without_clients_scripts_and_stats_seconds_before", kept0);
    m.put("without_clients_scripts_and_stats_seconds_after", kept1);
    m.put("without_clients_scripts_and_stats_seconds_change_pct", pct(kept1 - kept0, kept0));
    m.put("back_to_baseline", Math.abs(kept1 - kept0) <= kept0 * 0.05);
    m.put("queue_keys_left", others);
    Map<String, List<String>> moved = new LinkedHashMap<>();
    before.forEach((field, was) -> {
      String now = withoutStats.get(field);
      if (now != null && !now.equals(was) && was.matches("\\d+")) {
        moved.put(field, List.of(was, now));
      }
    });
    m.put("info_memory_moved", moved);
    m.put("memory_stats_before_and_after", breakdown(before, withoutStats));
    return m;
  }

  /** The parts of used_memory that MEMORY STATS names, each as its figure before and after. */
  private static final List<String> USED_MEMORY_PARTS = List.of("startup.allocated", "clients.normal",
      "lua.caches", "db.0.overhead.hashtable.main", "db.0.overhead.hashtable.expires", "overhead.total",
      "keys.count", "dataset.bytes", "total.allocated");

  /**
   * Where the baseline and the after-drain reading differ, structure by structure (the stats
   * hashes deleted, as in the verdict): a growth the verdict counts is then traced to the
   * keyspace's tables, the keys left or Redis's own overhead, not only read as one number.
   */
  private static Map<String, List<Long>> breakdown(Map<String, String> before, Map<String, String> after) {
    Map<String, List<Long>> parts = new LinkedHashMap<>();
    for (String part : USED_MEMORY_PARTS) {
      String was = before.get("memory_stats." + part);
      String now = after.get("memory_stats." + part);
      if (was != null && now != null) {
        parts.put(part, List.of(Long.parseLong(was), Long.parseLong(now)));
      }
    }
    return parts;
  }

  private static double pct(long delta, long base) {
    return Measures.round2(delta * 100.0 / base);
  }

  /** Every key of the queue (one SCAN over its hash tag). */
  private List<String> queueKeys(Measures.Queue q) {
    String pattern = q.keys().jobs().replaceAll("jobs$", "*");
    List<String> keys = new ArrayList<>();
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = redis.redis().scan(cursor, new ScanParams().match(pattern).count(1000));
      keys.addAll(page.getResult());
      cursor = page.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    return keys;
  }
}
