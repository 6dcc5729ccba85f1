package dev.delayq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.redis.HandlerWait;
import dev.delayq.testing.QueueProbe;
import org.junit.jupiter.api.Test;

/** Jobs waiting for a handler as {@code stats}, {@code inspect}, {@code cancel} and {@code check} show them. */
class CliWaitingForHandlerTest {
  private final Cli cli = new Cli();

  @Test
  void statsCountThemInspectShowsTheStateAndCancelWithdrawsOne() throws Exception {
    HandlerWait wait = cli.broker.handlerWait();
    wait.leave("c1", cli.probe.seedInFlight("c1", "w1"), QueueProbe.TYPE);
    wait.leave("c1", cli.probe.seedInFlight("c1", "w2"), QueueProbe.TYPE);

    Cli.Result stats = cli.run("stats");
    assertEquals(0, stats.exit(), stats.toString());
    assertTrue(stats.out().contains("  waiting for a handler: test_job 2 (no live worker it reached runs the type; "
        + "dead after queue.handlerWait)\n"), stats.out());
    Cli.Result json = cli.run("stats", "--json");
    assertEquals(2, new ObjectMapper().readTree(json.out()).path("flow").path("waitingForHandler").path(QueueProbe.TYPE).asLong(),
        json.out());

    Cli.Result jobs = cli.run("jobs", "--waiting-for-handler");
    assertEquals(0, jobs.exit(), jobs.toString());
    assertTrue(jobs.out().contains("w1") && jobs.out().contains("w2"), jobs.out());
    assertEquals(2, cli.run("jobs", "--waiting-for-handler", "--ready").exit(), "one list at a time");

    Cli.Result inspect = cli.run("inspect", "w1");
    assertTrue(inspect.out().contains("state       WAITING_FOR_HANDLER"), inspect.out());

    assertEquals(0, cli.run("cancel", "w1").exit());
    assertEquals(0, cli.run("check").exit(), "both places and records agree");
    assertTrue(cli.run("stats").out().contains("waiting for a handler: test_job 1 "));
  }
}
