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
 * A quick run of {@code delayq bench enqueue --n 2000}: its rates, the Redis CPU of the one-by-one
 * half, and the single synchronous calls paced at 1,000 a second, whose latencies are in order.
 * A class of its own, as BenchTicksTest, so that it need not run after bench all.
 */
class BenchEnqueueTest {
  private static final Path HOME = Path.of("").toAbsolutePath().getParent();

  @Test
  void enqueueTimesSingleSynchronousCallsBesideItsRates() throws Exception {
    Path json = Path.of("target", "bench-enqueue.json").toAbsolutePath();
    int exit = new CommandLine(new BenchMain()).execute("enqueue", "--n", "2000", "--runs", "1",
        "--home", HOME.toString(), "--json", json.toString());
    assertEquals(0, exit, "bench exit code");

    JsonNode e = new ObjectMapper().readTree(json.toFile()).path("enqueue");
    for (String key : List.of("batched_jobs_per_s", "one_by_one_jobs_per_s", "one_by_one_redis_cpu_us_per_job")) {
      assertTrue(e.path(key).asDouble() > 0, "enqueue." + key + " in " + e);
    }
    assertEquals(3000, e.path("single_call_calls").asInt(), "3 s of calls at 1,000/s: " + e);
    double p50 = e.path("single_call_p50_ms").asDouble();
    double p99 = e.path("single_call_p99_ms").asDouble();
    double max = e.path("single_call_max_ms").asDouble();
    assertTrue(p50 > 0 && p50 <= p99 && p99 <= max, "p50 <= p99 <= max, in ms: " + e);
  }
}
