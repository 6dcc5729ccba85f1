package dev.delayq.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A quick run of {@code delayq bench all --n 2000}: every measure runs against real worker
 * processes and the JSON carries every key scripts compare. No figure is asserted (the
 * machine is shared and noisy), except that correctness holds at speed: after the drain the
 * invariant check is clean and every job ran exactly once.
 */
class BenchSmokeTest {
  private static final Path HOME = Path.of("").toAbsolutePath().getParent();

  @Test
  void everyMeasureRunsAndTheJsonHasEveryKey() throws Exception {
    Path json = Path.of("target", "bench-smoke.json").toAbsolutePath();
    int exit = new CommandLine(new BenchMain()).execute("all", "--n", "2000", "--runs", "1",
        "--sustain-seconds", "3", "--home", HOME.toString(), "--json", json.toString());
    assertEquals(0, exit, "bench exit code");

    JsonNode r = new ObjectMapper().readTree(json.toFile());
    for (String measure : List.of("enqueue", "forward", "drain", "precision", "memory", "supervisor", "ratelimit")) {
      assertTrue(r.has(measure), "measure " + measure + " in " + r);
    }
    for (String measure : List.of("enqueue", "forward", "drain")) {
      assertTrue(r.path(measure).path("jobs_per_s").asLong() > 0, measure + ".jobs_per_s in " + r);
    }
    for (String p : List.of("p50", "p90", "p99", "max")) {
      assertTrue(r.path("precision").path("lateness_ms").has(p), "precision.lateness_ms." + p);
    }
    assertTrue(r.path("memory").path("bytes_per_job").asLong() > 0);
    for (String key : List.of("restart_ms", "reload_ms", "rss_mb", "rerun_ms")) {
      assertTrue(r.path("supervisor").path(key).asDouble() > 0, "supervisor." + key + " in " + r);
    }
    assertEquals(0, r.path("drain").path("consistency_breaches").asInt(), "invariant after drain");
    assertTrue(r.path("drain").path("ran_exactly_once").asBoolean(), "every job ran exactly once");
    assertEquals(0, r.path("precision").path("spread").path("early").asInt(), "no job started early");
    assertEquals(0, r.path("supervisor").path("stop_jobs_left").asInt(), "stop let every busy job finish");
    for (String key : List.of("limit_per_s", "achieved_per_s", "busiest_1s_window")) {
      assertTrue(r.path("ratelimit").path(key).asDouble() > 0, "ratelimit." + key + " in " + r);
    }
    assertEquals(r.path("ratelimit").path("jobs").asInt(), r.path("ratelimit").path("started").asInt(),
        "every rate-limited job started once");
    assertEquals(0, r.path("ratelimit").path("dead").asInt());
    assertEquals(0, r.path("ratelimit").path("consistency_breaches").asInt());
  }
}
