package dev.delayq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code delayq promote}, {@code reschedule} and {@code edit} against the test Redis. */
class CliChangeCommandsTest {
  private final Cli cli = new Cli();

  @Test
  void promoteRunsADelayedJobNow() {
    cli.probe.seedDelayed("j1", 3_600_000);

    Cli.Result r = cli.run("promote", "j1");

    assertEquals(0, r.exit(), r.toString());
    assertEquals("promoted job j1 is due now, waiting for a worker\n", r.out());
    assertEquals(List.of("ready"), cli.probe.placesOf("j1"));
  }

  @Test
  void rescheduleTakesADelayOrAnInstant() {
    cli.probe.seedReady("j1");

    Cli.Result byDelay = cli.run("reschedule", "j1", "--delay", "10m");
    assertEquals(0, byDelay.exit(), byDelay.toString());
    assertEquals(List.of("delayed"), cli.probe.placesOf("j1"));
    assertTrue(cli.probe.dueAt("j1") > cli.probe.redisNowMs() + 590_000);

    Cli.Result byInstant = cli.run("reschedule", "j1", "--at", "2099-12-01T10:00:00+08:00");
    assertEquals(0, byInstant.exit(), byInstant.toString());
    assertEquals("rescheduled job j1 is due at 2099-12-01T02:00:00Z\n", byInstant.out());
    assertEquals(java.time.Instant.parse("2099-12-01T02:00:00Z").toEpochMilli(), cli.probe.dueAt("j1"));
  }

  @Test
  void rescheduleWantsExactlyOneOfDelayAndAt() {
    cli.probe.seedDelayed("j1", 60_000);

    Cli.Result neither = cli.run("reschedule", "j1");
    Cli.Result both = cli.run("reschedule", "j1", "--delay", "1m", "--at", "2099-12-01T10:00:00Z");

    assertEquals(2, neither.exit());
    assertEquals("delayq: give --delay DURATION or --at ISO-8601\n", neither.err());
    assertEquals(2, both.exit());
    assertEquals("delayq: give --delay or --at, not both\n", both.err());
  }

  @Test
  void editReplacesThePayloadAndRefusesBadJsonBeforeConnecting() {
    cli.probe.seedDelayed("j1", 60_000);

    Cli.Result ok = cli.run("edit", "j1", "--payload", "{ \"order_id\" : 7 }");
    Cli.Result bad = cli.run("edit", "j1", "--payload", "{oops");

    assertEquals(0, ok.exit(), ok.toString());
    assertTrue(cli.probe.rawRecord("j1").endsWith(",\"p\":{\"order_id\":7}}"));
    assertEquals(2, bad.exit(), bad.toString());
    assertTrue(bad.err().startsWith("delayq: --payload is not JSON"), bad.err());
  }

  @Test
  void aRunningJobIsRefusedNamingItsConsumer() {
    cli.probe.seedInFlight("worker-1:42:3", "j1");

    Cli.Result r = cli.run("promote", "j1");

    assertEquals(1, r.exit());
    assertEquals("delayq: job j1 cannot be promoted: it is IN_FLIGHT (running on consumer worker-1:42:3)"
        + " (only delayed or ready jobs can be)\n", r.err());
    assertEquals(List.of("inflight:worker-1:42:3"), cli.probe.placesOf("j1"));
  }

  @Test
  void deadAndUnknownJobsAreRefused() {
    cli.probe.seedDead("c1", "j1", "boom");

    Cli.Result dead = cli.run("edit", "j1", "--payload", "{}");
    Cli.Result unknown = cli.run("reschedule", "nope", "--delay", "1m");

    assertEquals(1, dead.exit());
    assertTrue(dead.err().contains("job j1 is dead"), dead.err());
    assertEquals(1, unknown.exit());
    assertEquals("delayq: no job with id nope (never enqueued, or already done)\n", unknown.err());
  }

  @Test
  void jobsListsTheNextHourByTypeAndPrefixAndSaysWhereTheNextPageIs() {
    cli.probe.seedDelayed("order-1", 60_000);
    cli.probe.seedDelayed("order-2", 120_000);
    cli.probe.seedDelayed("order-late", 7_200_000);
    cli.probe.seedDelayed("other", 90_000);

    Cli.Result hour = cli.run("jobs", "--within", "1h", "--prefix", "order-");
    Cli.Result paged = cli.run("jobs", "--limit", "1");
    Cli.Result bad = cli.run("jobs", "--ready", "--within", "1h");

    assertEquals(0, hour.exit(), hour.toString());
    List<String> lines = hour.out().lines().toList();
    assertEquals(3, lines.size(), hour.out());
    assertTrue(lines.get(1).startsWith("order-1 ") && lines.get(2).startsWith("order-2 "), hour.out());
    assertTrue(lines.get(1).contains("in ") && lines.get(1).contains("{\"n\":1}"), hour.out());
    assertTrue(paged.out().endsWith("next page: --offset 1\n"), paged.out());
    assertEquals(2, bad.exit());
  }

  @Test
  void jobsInFlightListsClaimedJobsWithTheConsumerThatHoldsThem() {
    cli.probe.seedInFlight("w-1", "run-1");
    cli.probe.seedDelayed("later", 60_000);

    Cli.Result flying = cli.run("jobs", "--in-flight");
    Cli.Result both = cli.run("jobs", "--in-flight", "--ready");
    Cli.Result within = cli.run("jobs", "--in-flight", "--within", "1h");

    assertEquals(0, flying.exit(), flying.toString());
    List<String> lines = flying.out().lines().toList();
    assertEquals(2, lines.size(), flying.out());
    assertTrue(lines.get(0).contains("HELD BY"), flying.out());
    assertTrue(lines.get(1).startsWith("run-1 ") && lines.get(1).contains("running on w-1"), flying.out());
    assertEquals(2, both.exit());
    assertTrue(both.err().contains("--ready and --in-flight are two lists"), both.err());
    assertEquals(2, within.exit());
    assertTrue(within.err().contains("drop it with --in-flight"), within.err());
  }

  @Test
  void enqueueIfPendingReplacesOrDebouncesAPendingJobAndRefusesARunningOne() {
    Cli.Result first = cli.run("enqueue", "--type", "digest", "--id", "d1", "--delay", "1h", "--payload", "{\"v\":1}");
    Cli.Result replaced = cli.run("enqueue", "--type", "digest", "--id", "d1", "--delay", "5m",
        "--payload", "{\"v\":2}", "--if-pending", "replace-and-push");

    assertEquals(0, first.exit(), first.toString());
    assertEquals(0, replaced.exit(), replaced.toString());
    assertTrue(replaced.err().contains("the pending job d1 was changed"), replaced.toString());
    assertTrue(cli.probe.rawRecord("d1").endsWith(",\"p\":{\"v\":2}}"));
    assertTrue(cli.probe.dueAt("d1") < cli.probe.redisNowMs() + 300_001);

    cli.probe.seedInFlight("worker-1:1:1", "running");
    Cli.Result refused = cli.run("enqueue", "--type", "digest", "--id", "running", "--delay", "5m",
        "--if-pending", "push-due");
    Cli.Result noId = cli.run("enqueue", "--type", "digest", "--delay", "5m", "--if-pending", "push-due");
    Cli.Result badWord = cli.run("enqueue", "--type", "digest", "--id", "x", "--delay", "5m", "--if-pending", "merge");

    assertEquals(1, refused.exit(), refused.toString());
    assertTrue(refused.err().contains("job running is running: it cannot be replaced"), refused.err());
    assertEquals(2, noId.exit(), noId.toString());
    assertEquals(2, badWord.exit(), badWord.toString());
    assertTrue(badWord.err().contains("keep, replace-payload, push-due, replace-and-push"), badWord.err());
  }
}
