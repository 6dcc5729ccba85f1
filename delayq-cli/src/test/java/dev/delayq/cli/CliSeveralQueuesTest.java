package dev.delayq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.Keys;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import org.junit.jupiter.api.Test;

/** {@code delayq queues}, {@code --queue} and pause/resume on a system of several queues (worker.queues). */
class CliSeveralQueuesTest {
  private final Cli cli = new Cli();
  private final String low = cli.queue + "-low";
  private final QueueProbe lowProbe = new QueueProbe(RedisFixture.get().broker(new Keys("delayq", low)));

  CliSeveralQueuesTest() {
    cli.env.put("DELAYQ_WORKER_QUEUES", cli.queue + ":3," + low + ":1");
  }

  @Test
  void queuesListsEveryQueueWithItsWeightAndDepths() {
    cli.probe.seedDelayed("a", 60_000);
    lowProbe.seedDelayed("b", 60_000);
    lowProbe.seedReady("c");

    Cli.Result r = cli.run("queues");

    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().lines().anyMatch(l -> l.matches(java.util.regex.Pattern.quote(cli.queue)
        + "\\s+3\\s+1\\s+0\\s+0\\s+0\\s+-")), r.out());
    assertTrue(r.out().lines().anyMatch(l -> l.matches(java.util.regex.Pattern.quote(low)
        + "\\s+1\\s+1\\s+1\\s+0\\s+0\\s+-")), r.out());
    Cli.Result json = cli.run("queues", "--json");
    assertTrue(json.out().contains("\"queue\":\"" + low + "\",\"weight\":1,\"delayed\":1,\"ready\":1"), json.out());
  }

  @Test
  void pauseNamesAnyQueueOfTheSystemAndQueueOptionReadsThatQueue() {
    Cli.Result paused = cli.run("pause", low);
    assertEquals(0, paused.exit(), paused.toString());
    assertTrue(paused.out().contains("paused queue " + low), paused.out());

    Cli.Result list = cli.run("queues");
    assertTrue(list.out().lines().anyMatch(l -> l.startsWith(low + " ") && l.endsWith("queue")), list.out());
    assertTrue(list.out().lines().anyMatch(l -> l.startsWith(cli.queue + " ") && l.endsWith("-")), list.out());
    Cli.Result stats = cli.run("stats", "--queue", low, "--json");
    assertTrue(stats.out().contains("\"queue\":\"" + low + "\"") && stats.out().contains("\"*\""), stats.out());
    assertEquals(0, cli.run("resume", low + ":some_type").exit());
    assertEquals(0, cli.run("resume", low).exit());

    Cli.Result unknown = cli.run("pause", "nightly");
    assertEquals(ExitCodes.USAGE, unknown.exit(), unknown.toString());
    assertTrue(unknown.err().contains(cli.queue + ", " + low), unknown.err());
  }

  @Test
  void checkWithoutQueueChecksEveryQueueAndNamesTheOneWithABreach() {
    cli.probe.seedDelayed("a", 60_000);
    lowProbe.seedDelayed("b", 60_000);

    Cli.Result clean = cli.run("check");
    assertEquals(0, clean.exit(), clean.toString());
    assertTrue(clean.out().contains("ok: queue " + cli.queue + ", 1 records"), clean.out());
    assertTrue(clean.out().contains("ok: queue " + low + ", 1 records"), clean.out());

    RedisFixture.get().redis().zadd(new Keys("delayq", low).delayed(), 1, "no-record");
    Cli.Result breach = cli.run("check");
    assertEquals(1, breach.exit(), breach.toString());
    assertTrue(breach.out().contains("ok: queue " + cli.queue + ","), breach.out());
    assertTrue(breach.err().contains("in queue " + low + " (1 records)"), breach.err());
    assertEquals(0, cli.run("check", "--queue", cli.queue).exit(), "--queue checks that queue alone");
  }
}
