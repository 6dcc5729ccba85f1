package dev.delayq.cli;

import dev.delayq.testing.RedisFixture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.metrics.StatsRecorder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code delayq stats}, {@code check} and {@code recover}: the whole queue. */
class CliQueueCommandsTest {
  private final Cli cli = new Cli();

  private void seedFinishedRuns() {
    StatsRecorder recorder = new StatsRecorder(cli.keys);
    for (int i = 0; i < 120; i++) {
      recorder.started("order_close", 3);
      recorder.finished("order_close", StatsRecorder.Event.SUCCEEDED, 20);
    }
    recorder.flush(RedisFixture.get().redis(), cli.probe.redisNowMs() / 1000 - 2);
  }

  @Test
  void statsShowDepthsRateLatenessAndCountsPerType() {
    cli.probe.seedDead("c1", "dead-1", "boom");
    cli.probe.seedReady("ready-1");
    cli.probe.seedDelayed("later", 60_000);
    seedFinishedRuns();

    Cli.Result r = cli.run("stats");

    assertEquals(0, r.exit(), r.toString());
    List<String> lines = r.out().lines().toList();
    assertTrue(lines.get(0).startsWith("queue " + cli.queue + " at "), lines.get(0));
    assertEquals("  delayed 1   ready 1   in flight 0   dead 1", lines.get(1));
    assertTrue(lines.get(2).startsWith("  backlog 1 due, not started; oldest overdue by "), lines.get(2));
    assertEquals("  last minute: 2.00 jobs/s; lateness p50 <= 5ms, p99 <= 5ms (120 started)", lines.get(3));
    assertTrue(lines.get(4).matches("  type +enqueued +started +succeeded +failed +retried +dead +rescheduled +cancelled"), lines.get(4));
    assertTrue(lines.get(5).matches("  order_close +0 +120 +120 +0 +0 +0 +0 +0"), lines.get(5));
    assertTrue(lines.get(6).matches("  test_job +3 +0 .*"), lines.get(6));
  }

  @Test
  void statsJsonIsOneObjectWithEveryFigure() throws Exception {
    cli.probe.seedDelayed("later", 60_000);
    seedFinishedRuns();

    Cli.Result r = cli.run("stats", "--json");

    assertEquals(0, r.exit(), r.toString());
    JsonNode s = new ObjectMapper().readTree(r.out());
    assertEquals(cli.queue, s.get("queue").asText());
    assertEquals(1, s.get("depths").get("delayed").asInt());
    assertEquals(0, s.get("backlog").asInt());
    assertEquals(2.0, s.get("jobsPerSecond").asDouble());
    assertEquals(5, s.get("latenessP99Ms").asInt());
    assertEquals(120, s.get("counters").get("order_close").get("succeeded").asInt());
  }

  @Test
  void statsWatchPrintsAgainEveryInterval() throws Exception {
    Cli.Result r = cli.run("stats", "--watch", "--json", "--interval", "100ms", "--iterations", "3");

    assertEquals(0, r.exit(), r.toString());
    assertEquals(3, r.out().lines().count(), r.out());
    assertEquals(2, cli.run("stats", "--watch", "--interval", "5ms").exit());
    assertEquals(2, cli.run("stats", "--interval", "soon").exit());
  }

  @Test
  void checkOfAHealthyQueueIsExitZero() {
    cli.probe.seedDelayed("d", 60_000);

    Cli.Result r = cli.run("check");

    assertEquals(0, r.exit(), r.toString());
    assertEquals("ok: queue " + cli.queue + ", 1 records, each job in exactly one place\n", r.out());
  }

  @Test
  void checkListsEveryBreachAndIsExitOne() {
    cli.probe.seedDelayed("d", 60_000);
    RedisFixture.get().redis().hset(cli.keys.jobs(), "orphan", "{\"type\":\"t\",\"payload\":{}}");
    RedisFixture.get().redis().lpush(cli.keys.ready(), "ghost");

    Cli.Result r = cli.run("check");

    assertEquals(1, r.exit(), r.toString());
    List<String> lines = r.out().lines().sorted().toList();
    assertEquals(List.of("breach MISSING_RECORD: ghost: in ready without a record",
        "breach ORPHAN_RECORD: orphan: record in jobs but the id is in no structure"), lines);
    assertEquals("delayq: 2 breaches of the invariant in queue " + cli.queue + " (2 records)\n", r.err());
  }

  @Test
  void recoverRequeuesOrphansAndJobsOfGoneConsumers() {
    cli.probe.seedInFlight("ghost", "ghost-job");
    RedisFixture.get().redis().zrem(cli.keys.consumers(), "ghost");
    RedisFixture.get().redis().hset(cli.keys.jobs(), "orphan", "{\"type\":\"t\",\"payload\":{}}");

    Cli.Result r = cli.run("recover");

    assertEquals(0, r.exit(), r.toString());
    assertEquals("consumers taken back: 0 with an expired heartbeat, 1 unregistered\n"
        + "in-flight jobs: 1 back to ready, 0 to dead; 1 charged an attempt (their handler was running)\n"
        + "orphan records: 1 back to ready, 0 to dead (unreadable)\n", r.out());
    assertEquals(List.of("ready"), cli.probe.placesOf("orphan"));
    assertEquals(List.of("ready"), cli.probe.placesOf("ghost-job"));
    assertEquals(0, cli.run("check").exit());
  }
}
