package dev.delayq.cli;

import dev.delayq.testing.RedisFixture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code delayq dead list | retry | purge}. */
class CliDeadTest {
  private final Cli cli = new Cli();

  private void seedDeadRecord(String id, String type, long deadAt) {
    RedisFixture.get().redis().hset(cli.keys.jobs(), id, "{\"type\":\"" + type
        + "\",\"maxAttempts\":3,\"attempt\":3,\"lastError\":\"failed:\\nline two\",\"payload\":{}}");
    RedisFixture.get().redis().zadd(cli.keys.dead(), deadAt, id);
  }

  @Test
  void listOfAnEmptyDeadSetSaysSo() {
    Cli.Result r = cli.run("dead", "list");

    assertEquals(0, r.exit(), r.toString());
    assertEquals("no dead jobs in queue " + cli.queue + "\n", r.out());
  }

  @Test
  void listShowsNewestFirstFilteredAndLimited() throws Exception {
    long now = cli.probe.redisNowMs();
    seedDeadRecord("a-old", "alpha", now - 3_600_000);
    seedDeadRecord("a-new", "alpha", now - 1_000);
    seedDeadRecord("b-1", "beta", now - 2_000);

    Cli.Result all = cli.run("dead", "list");
    Cli.Result alpha = cli.run("dead", "list", "--type", "alpha", "--limit", "1");
    Cli.Result json = cli.run("dead", "list", "--json");

    assertEquals(0, all.exit(), all.toString());
    List<String> lines = all.out().lines().toList();
    assertTrue(lines.get(0).startsWith("id     type   dead"), lines.get(0));
    assertTrue(lines.get(1).startsWith("a-new  alpha  "), lines.get(1));
    assertTrue(lines.get(1).endsWith("3/3       failed: line two"), lines.get(1));
    assertTrue(lines.get(2).startsWith("b-1    beta   "), lines.get(2));
    assertTrue(lines.get(3).startsWith("a-old  alpha  1h 00m ago"), lines.get(3));
    assertEquals(2, alpha.out().lines().count(), alpha.out());
    assertTrue(alpha.out().contains("a-new"));
    assertEquals(3, json.out().lines().count());
    assertEquals("a-new", new ObjectMapper().readTree(json.out().lines().findFirst().get()).get("id").asText());
  }

  @Test
  void retryPutsADeadJobOnReady() {
    cli.probe.seedDead("c1", "j1", "boom");

    Cli.Result r = cli.run("dead", "retry", "j1");

    assertEquals(0, r.exit(), r.toString());
    assertEquals("retried j1\n", r.out());
    assertEquals(List.of("ready"), cli.probe.placesOf("j1"));
    assertEquals("boom", cli.probe.record("j1").get("previousError").asText());
  }

  @Test
  void retryOfAnUnknownOrLiveJobIsExitOne() {
    cli.probe.seedDelayed("alive", 60_000);

    Cli.Result unknown = cli.run("dead", "retry", "nope");
    Cli.Result alive = cli.run("dead", "retry", "alive");

    assertEquals(1, unknown.exit());
    assertEquals("delayq: no job with id nope in queue " + cli.queue + "\n", unknown.err());
    assertEquals(1, alive.exit());
    assertEquals("delayq: job alive is not dead: it is DELAYED (waiting for its due time)\n", alive.err());
  }

  @Test
  void retryOfAnUnreadableRecordIsExitOneAndItStaysDead() {
    RedisFixture.get().redis().hset(cli.keys.jobs(), "bad", "{oops");
    RedisFixture.get().redis().zadd(cli.keys.dead(), 1, "bad");

    Cli.Result r = cli.run("dead", "retry", "bad");

    assertEquals(1, r.exit());
    assertTrue(r.err().startsWith("delayq: dead job bad has an unreadable record"), r.err());
    assertEquals(List.of("dead"), cli.probe.placesOf("bad"));
  }

  @Test
  void retryAllAndRetryNeedingOneOfIdOrAll() {
    seedDeadRecord("d1", "t", 1);
    seedDeadRecord("d2", "t", 2);

    Cli.Result r = cli.run("dead", "retry", "--all");

    assertEquals(0, r.exit(), r.toString());
    assertEquals("retried 2 dead jobs\n", r.out());
    assertEquals(2, cli.probe.readyIds().size());
    assertEquals(2, cli.run("dead", "retry").exit());
    assertEquals(2, cli.run("dead", "retry", "d1", "--all").exit());
  }

  @Test
  void purgeRemovesOnlyJobsDeadLongEnough() {
    long now = cli.probe.redisNowMs();
    seedDeadRecord("old", "t", now - 7_200_000);
    seedDeadRecord("new", "t", now - 1_000);

    Cli.Result r = cli.run("dead", "purge", "--older-than", "1h");

    assertEquals(0, r.exit(), r.toString());
    assertEquals("purged 1 dead jobs (dead for 1h or longer)\n", r.out());
    assertEquals(List.of("new"), cli.probe.deadIds());
    assertEquals("purged 1 dead jobs\n", cli.run("dead", "purge").out());
    assertEquals(0, cli.probe.recordCount());
  }

  @Test
  void purgeWithABadDurationIsOneLineAndExitTwo() {
    seedDeadRecord("d1", "t", 1);

    Cli.Result r = cli.run("dead", "purge", "--older-than", "5x");

    assertEquals(2, r.exit());
    assertEquals("delayq: Invalid value for option '--older-than': '5x' is not a duration "
        + "(write it like 250ms, 30s, 5m, 2h or 1d) (see 'delayq dead purge --help')\n", r.err());
    assertEquals(List.of("d1"), cli.probe.deadIds());
  }

  @Test
  void deadWithoutASubcommandIsAUsageError() {
    assertEquals(2, cli.run("dead").exit());
    assertEquals(2, cli.run("dead", "list", "--limit", "0").exit());
  }
}
