package dev.delayq.cli;

import dev.delayq.testing.RedisFixture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code delayq schedule upsert|list|pause|resume|run|remove} against the test Redis. */
class CliScheduleTest {
  private final Cli cli = new Cli();

  @Test
  void upsertListPauseResumeRunAndRemove() throws Exception {
    Cli.Result up = cli.run("schedule", "upsert", "digest", "--cron", "0 9 * * *", "--tz", "Asia/Shanghai",
        "--type", "daily_digest", "--payload", "{\"to\":\"ops\"}", "--missed", "run-once");
    assertEquals(0, up.exit(), up.toString());
    assertTrue(up.out().contains("digest  cron 0 9 * * * (Asia/Shanghai)  type daily_digest  active  missed ticks: run once"),
        up.out());
    assertTrue(up.out().matches("(?s).*next    \\d{4}-\\d\\d-\\d\\dT01:00:00Z, .*"), up.out());

    Cli.Result list = cli.run("schedule", "list", "--json");
    JsonNode row = new ObjectMapper().readTree(list.out().lines().findFirst().orElseThrow());
    assertEquals("digest", row.get("id").asText());
    assertEquals(5, row.get("nextTicks").size());
    assertEquals("RUN_ONCE", row.get("missed").asText());

    Cli.Result paused = cli.run("schedule", "pause", "digest");
    assertEquals(0, paused.exit(), paused.toString());
    assertTrue(paused.out().contains("PAUSED") && paused.out().contains("next    -"), paused.out());
    Cli.Result resumed = cli.run("schedule", "resume", "digest");
    assertTrue(resumed.out().contains("active"), resumed.out());

    Cli.Result run = cli.run("schedule", "run", "digest");
    assertEquals(0, run.exit(), run.toString());
    String id = run.out().trim();
    assertTrue(id.startsWith("digest@run-"), id);
    assertEquals(List.of("ready"), cli.probe.placesOf(id));

    Cli.Result removed = cli.run("schedule", "remove", "digest");
    assertEquals("removed schedule digest\n", removed.out());
    assertEquals("(no schedules)\n", cli.run("schedule", "list").out());
    Cli.Result again = cli.run("schedule", "remove", "digest");
    assertEquals(1, again.exit());
    assertEquals("delayq: no schedule with id digest\n", again.err());
  }

  @Test
  void everyIsTheAlternativeToCron() {
    Cli.Result r = cli.run("schedule", "upsert", "ping", "--every", "30s", "--type", "ping");

    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("ping  every 30s  type ping  active  missed ticks: skip"), r.out());
  }

  @Test
  void badSchedulesAreRefusedNamingWhatIsWrong() {
    Cli.Result both = cli.run("schedule", "upsert", "x", "--cron", "* * * * *", "--every", "1m", "--type", "t");
    Cli.Result neither = cli.run("schedule", "upsert", "x", "--type", "t");
    Cli.Result badCron = cli.run("schedule", "upsert", "x", "--cron", "99 * * * *", "--type", "t");
    Cli.Result badZone = cli.run("schedule", "upsert", "x", "--cron", "* * * * *", "--tz", "Nowhere/City", "--type", "t");
    Cli.Result badEvery = cli.run("schedule", "upsert", "x", "--every", "250ms", "--type", "t");
    Cli.Result badId = cli.run("schedule", "upsert", "a@b", "--every", "1s", "--type", "t");
    Cli.Result badPayload = cli.run("schedule", "upsert", "x", "--every", "1s", "--type", "t", "--payload", "{");

    for (Cli.Result r : List.of(both, neither, badCron, badZone, badEvery, badId, badPayload)) {
      assertEquals(2, r.exit(), r.toString());
    }
    assertEquals("delayq: give --cron or --every, not both\n", both.err());
    assertEquals("delayq: give --cron EXPR or --every DURATION\n", neither.err());
    assertTrue(badCron.err().contains("'99 * * * *' is not valid"), badCron.err());
    assertTrue(badZone.err().contains("'Nowhere/City' is not a time zone"), badZone.err());
    assertTrue(badEvery.err().contains("at least 1s"), badEvery.err());
    assertTrue(badId.err().contains("schedule id 'a@b' is not valid"), badId.err());
    assertEquals("(no schedules)\n", cli.run("schedule", "list").out());
  }

  @Test
  void aBrokenScheduleIsListedMarkedBesideTheOthers() throws Exception {
    assertEquals(0, cli.run("schedule", "upsert", "ping", "--every", "30s", "--type", "ping").exit());
    RedisFixture.get().redis().hset(cli.keys.schedules(), "mars",
        "{\"id\":\"mars\",\"cron\":\"0 9 * * *\",\"tz\":\"Mars/Olympus\\u001b[31m\",\"type\":\"ping\"}");

    Cli.Result list = cli.run("schedule", "list");
    Cli.Result json = cli.run("schedule", "list", "--json");

    assertEquals(0, list.exit(), list.toString());
    assertTrue(list.out().startsWith("ping  every 30s  type ping  active"), list.out());
    assertTrue(list.out().contains("mars  BROKEN: Invalid ID for region-based ZoneId, invalid format: Mars/Olympus\\u001b[31m"
        + " (it does not tick;"),
        list.out());
    assertEquals(0, json.exit(), json.toString());
    List<String> rows = json.out().lines().toList();
    assertEquals(2, rows.size(), json.out());
    JsonNode broken = new ObjectMapper().readTree(rows.get(1));
    assertEquals("mars", broken.get("id").asText());
    assertTrue(broken.get("broken").asText().contains("Mars/Olympus"), rows.get(1));
  }

  @Test
  void aCronThatNeverFiresIsRefused() {
    Cli.Result r = cli.run("schedule", "upsert", "feb30", "--cron", "0 0 30 2 *", "--type", "t");

    assertEquals(2, r.exit(), r.toString());
    assertTrue(r.err().contains("cron expression '0 0 30 2 *' never fires"), r.err());
    assertEquals("(no schedules)\n", cli.run("schedule", "list").out());
  }
}
