package dev.delayq.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A short {@code delayq bench soak} (20 s at 200 jobs/s, delays up to 5 s, one worker killed
 * with SIGKILL at 10 s): the report is produced with its per-minute rows, worker figures and
 * Redis memory, and the ledger finds every job run (lost 0) with a clean invariant. No speed
 * or memory figure is asserted: the machine is shared.
 */
class SoakSmokeTest {
  private static final Path HOME = Path.of("").toAbsolutePath().getParent();

  @Test
  void aShortSoakWithOneKillReportsAndLosesNoJob() throws Exception {
    Path json = Path.of("target", "soak-smoke.json").toAbsolutePath();
    int exit = new CommandLine(new BenchMain()).execute("soak", "--duration", "20s", "--rate", "200",
        "--kill-every", "10s", "--max-delay", "5s", "--home", HOME.toString(), "--json", json.toString());
    assertEquals(0, exit, "bench exit code");

    JsonNode soak = new ObjectMapper().readTree(json.toFile()).path("soak");
    assertEquals(4000, soak.path("enqueued").asLong(), "jobs enqueued in " + soak);
    assertEquals(0, soak.path("lost").asLong(), "lost jobs in " + soak);
    assertEquals(4000, soak.path("ran").asLong(), "distinct jobs run in " + soak);
    // the kill may re-run what its worker had started (charged, at a higher attempt); a job that
    // started twice at one attempt ran again without being charged, which must never happen
    assertEquals(0, soak.path("duplicates_at_the_same_attempt").asLong(), "uncharged re-runs in " + soak);
    assertEquals(1, soak.path("kill_log").size(), "one worker killed in " + soak.path("kill_log"));
    assertTrue(soak.path("kill_log").get(0).has("pid"), "the kill hit a worker: " + soak.path("kill_log"));
    assertEquals(0, soak.path("consistency_breaches").asInt(), "invariant after the drain");
    assertTrue(soak.path("minutes").size() >= 1, "per-minute rows in " + soak);
    assertTrue(soak.path("minutes").get(0).has("p99_ms"), "lateness p99 per minute in " + soak);
    assertEquals(2, soak.path("workers_at_end").size(), "both workers' figures in " + soak);
    assertTrue(soak.path("redis_memory").has("back_to_baseline"), "Redis memory verdict in " + soak);
  }
}
