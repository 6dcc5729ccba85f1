package dev.delayq.cli;

import dev.delayq.testing.RedisFixture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code delayq cancel} and {@code delayq inspect}: one job by id. */
class CliJobCommandsTest {
  private final Cli cli = new Cli();

  @Test
  void cancelWithdrawsADelayedJob() {
    cli.probe.seedDelayed("j1", 60_000);

    Cli.Result r = cli.run("cancel", "j1");

    assertEquals(0, r.exit(), r.toString());
    assertEquals("cancelled j1\n", r.out());
    assertEquals(List.of(), cli.probe.placesOf("j1"));
  }

  @Test
  void cancelOfAnUnknownIdIsOneLineAndExitOne() {
    Cli.Result r = cli.run("cancel", "nope");

    assertEquals(1, r.exit());
    assertEquals("delayq: no job with id nope in queue " + cli.queue + "\n", r.err());
    assertEquals("", r.out());
  }

  @Test
  void cancelOfARunningJobAsksItsWorkerToInterruptIt() {
    cli.probe.seedInFlight("worker-1:42:3", "j1");

    Cli.Result r = cli.run("cancel", "j1");

    assertEquals(0, r.exit(), r.toString());
    assertEquals("cancelling j1: it is running; its worker interrupts it and it ends as cancelled, not retried\n",
        r.out());
    assertEquals(List.of("inflight:worker-1:42:3"), cli.probe.placesOf("j1"), "the worker ends it, not the CLI");
    assertTrue(RedisFixture.get().redis().exists(cli.keys.cancelRequest("j1")), "the request stands for the worker's heartbeat look");
  }

  @Test
  void inspectShowsStateDueAttemptsAndRecord() {
    cli.probe.seedDelayed("j1", 60_000);

    Cli.Result r = cli.run("inspect", "j1");

    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("state       DELAYED"), r.out());
    assertTrue(r.out().matches("(?s).*due         \\d{4}-.*Z \\(in \\d+\\.\\ds\\).*"), r.out());
    assertTrue(r.out().contains("attempt     1 of 5"), r.out());
    assertTrue(r.out().contains("record      " + cli.probe.rawRecord("j1")), r.out());
  }

  @Test
  void inspectOfADeadJobShowsItsError() throws Exception {
    cli.probe.seedDead("c1", "j1", "boom: order 7 not found");

    Cli.Result text = cli.run("inspect", "j1");
    Cli.Result json = cli.run("inspect", "j1", "--json");

    assertTrue(text.out().contains("state       DEAD"), text.out());
    assertTrue(text.out().contains("last error  boom: order 7 not found"), text.out());
    JsonNode node = new ObjectMapper().readTree(json.out());
    assertEquals("DEAD", node.get("state").asText());
    assertEquals("boom: order 7 not found", node.get("lastError").asText());
    assertEquals(cli.probe.rawRecord("j1"), node.get("rawRecord").asText());
  }

  @Test
  void inspectOfAnUnknownIdIsExitOne() {
    Cli.Result r = cli.run("inspect", "nope");

    assertEquals(1, r.exit());
    assertEquals("delayq: no job with id nope in queue " + cli.queue + "\n", r.err());
  }

  /** A caller may choose an id that begins with '-': it goes after "--", and a bare one is told so. */
  @Test
  void anIdThatBeginsWithADashGoesAfterTwoDashes() {
    for (String id : List.of("-hQ2x9LzA0b1c", "-q8Zz-xy_1AbC", "-Zz0xy_1AbC", "--Zz0xy_1AbC")) {
      cli.probe.seedDelayed(id, 60_000);

      Cli.Result bare = cli.run("inspect", id);
      Cli.Result afterDashes = cli.run("inspect", "--json", "--", id);
      Cli.Result cancelled = cli.run("cancel", "--", id);

      assertEquals(2, bare.exit(), id + ": " + bare);
      assertTrue(bare.err().contains("; an id that begins with '-' goes after '--': delayq inspect -- ID"), bare.err());
      assertEquals(0, afterDashes.exit(), id + ": " + afterDashes);
      assertTrue(afterDashes.out().contains("\"DELAYED\""), afterDashes.out());
      assertEquals("cancelled " + id + "\n", cancelled.out(), cancelled.toString());
      assertEquals(List.of(), cli.probe.placesOf(id));
    }
  }

  @Test
  void missingIdIsAUsageError() {
    Cli.Result r = cli.run("inspect");

    assertEquals(2, r.exit());
    assertEquals("delayq: Missing required parameter: 'ID' (see 'delayq inspect --help')\n", r.err());
  }
}
