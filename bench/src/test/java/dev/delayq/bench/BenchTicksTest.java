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
 * A quick run of {@code delayq bench ticks --seconds 3}: each tick of an every-second schedule is
 * measured against its tick time. A class of its own (it was in {@link BenchSmokeTest}) so that
 * it runs in the other fork, beside SoakSmokeTest, not after bench all.
 */
class BenchTicksTest {
  private static final Path HOME = Path.of("").toAbsolutePath().getParent();

  @Test
  void ticksMeasuresEachTickOfAnEverySecondScheduleAgainstItsTickTime() throws Exception {
    Path json = Path.of("target", "bench-ticks.json").toAbsolutePath();
    int exit = new CommandLine(new BenchMain()).execute("ticks", "--seconds", "3", "--home", HOME.toString(),
        "--json", json.toString());
    assertEquals(0, exit, "bench exit code");

    JsonNode t = new ObjectMapper().readTree(json.toFile()).path("ticks");
    assertEquals(3, t.path("jobs").asInt(), "one job per tick, each with its tickAt: " + t);
    for (String p : List.of("p50", "p99", "max")) {
      assertTrue(t.path("lateness_ms").has(p), "ticks.lateness_ms." + p + " in " + t);
    }
    assertEquals(0, t.path("early").asInt(), "no tick's job started before its tick");
    assertTrue(t.has("load_average_1m"));
  }
}
