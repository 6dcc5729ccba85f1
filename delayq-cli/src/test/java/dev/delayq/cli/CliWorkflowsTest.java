package dev.delayq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.Workflows;
import dev.delayq.testing.QueueProbe;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code delayq batch inspect | list}, and {@code delayq inspect} of a job of a workflow: one
 * waiting for others, one that ended with a result.
 */
class CliWorkflowsTest {
  private final Cli cli = new Cli();
  private final Workflows flows = cli.broker.workflows();

  private static Workflows.FlowJob job(String id, String batch, String... waits) {
    String extra = ",\"wf\":1" + (batch == null ? "" : ",\"b\":\"" + batch + "\"");
    return new Workflows.FlowJob(new NewJob(id, JobRecord.newHead(QueueProbe.TYPE, 3, false, Map.of(), extra),
        "{}", 0, false), List.of(waits), "fail");
  }

  private static Workflows.Callback callback(String id) {
    return new Workflows.Callback(id, JobRecord.newHead(QueueProbe.TYPE, 3, false, Map.of(), ",\"wf\":1"), "{}", 0);
  }

  /** Runs the next ready job, which must be {@code id}, to its end: done with {@code result}, or dead. */
  private void end(String id, String result, boolean dead) {
    Claimed c = cli.broker.claims().claim("c1", 1.0, 30_000).orElseThrow();
    assertEquals(id, c.id());
    assertTrue(dead ? cli.broker.outcomes().deadLetter("c1", c.delivery(), "boom")
        : cli.broker.outcomes().complete("c1", c.delivery(), false, result));
  }

  @Test
  void batchInspectShowsStateCountsTimesAndWhichCallbackFired() throws Exception {
    flows.openBatch("b1");
    flows.enqueue("b1", List.of(job("j1", "b1"), job("j2", "b1"), job("j3", "b1")));
    flows.closeBatch("b1", callback("b1-ok"), callback("b1-done"));
    end("j1", null, false);
    end("j2", null, true);

    Cli.Result open = cli.run("batch", "inspect", "b1");
    assertEquals(0, open.exit(), open.toString());
    assertTrue(open.out().contains("state       closed\n"), open.out());
    assertTrue(open.out().contains("total       3\n"), open.out());
    assertTrue(open.out().contains("pending     1\n"), open.out());
    assertTrue(open.out().contains("done        1\n"), open.out());
    assertTrue(open.out().contains("dead        1\n"), open.out());
    assertTrue(open.out().matches("(?s).*created     \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z \\(.* ago\\)\n.*"), open.out());
    assertTrue(open.out().matches("(?s).*closed      \\d{4}-.*Z \\(.* ago\\)\n.*"), open.out());
    assertTrue(open.out().contains("ended       -\n"), open.out());
    assertTrue(open.out().contains("on success  b1-ok\n"), open.out());
    assertTrue(open.out().contains("on complete b1-done\n"), open.out());

    end("j3", null, false);
    Cli.Result finished = cli.run("batch", "inspect", "b1");
    assertTrue(finished.out().contains("state       finished\n"), finished.out());
    assertTrue(finished.out().contains("on success  b1-ok (not fired)\n"), finished.out());
    assertTrue(finished.out().contains("on complete b1-done (fired)\n"), "a dead job: the complete callback " + finished.out());

    JsonNode json = new ObjectMapper().readTree(cli.run("batch", "inspect", "b1", "--json").out());
    assertEquals("finished", json.get("state").asText());
    assertEquals(3, json.get("total").asLong());
    assertEquals(0, json.get("pending").asLong());
    assertEquals(2, json.get("done").asLong());
    assertEquals(1, json.get("dead").asLong());
    assertEquals("b1-done", json.get("firedId").asText());
    assertTrue(json.get("endedAt").asText().matches("\\d{4}-.*Z"), json.toString());
  }

  @Test
  void batchInspectOfAnUnknownIdSaysSoAndExitsOne() {
    Cli.Result r = cli.run("batch", "inspect", "nope");

    assertEquals(1, r.exit(), r.toString());
    assertEquals("delayq: no batch nope (never opened, or finished and forgotten) in queue " + cli.queue + "\n", r.err());
    assertEquals("", r.out());
  }

  @Test
  void batchListShowsTheOpenBatchesWithTheirCountsAndLeavesFinishedOnesOut() throws Exception {
    assertEquals("no open batches in queue " + cli.queue + "\n", cli.run("batch", "list").out());
    flows.openBatch("first");
    flows.enqueue("first", List.of(job("f1", "first"), job("f2", "first")));
    flows.openBatch("second");
    flows.openBatch("gone");
    flows.closeBatch("gone", null, null); // no job: finished at once

    Cli.Result r = cli.run("batch", "list");
    assertEquals(0, r.exit(), r.toString());
    List<String> lines = r.out().lines().toList();
    assertEquals(3, lines.size(), r.out());
    assertTrue(lines.get(0).matches("id\\s+state\\s+total\\s+pending\\s+done\\s+dead\\s+cancelled\\s+created"), r.out());
    assertTrue(lines.get(1).matches("first\\s+open\\s+2\\s+2\\s+0\\s+0\\s+0\\s+.* ago"), r.out());
    assertTrue(lines.get(2).matches("second\\s+open\\s+0\\s+0\\s+0\\s+0\\s+0\\s+.* ago"), r.out());
    assertFalse(r.out().contains("gone"));

    Cli.Result limited = cli.run("batch", "list", "--limit", "1");
    assertTrue(limited.out().contains("(1 of 2 open batches; --limit N for more)"), limited.out());
    JsonNode first = new ObjectMapper().readTree(cli.run("batch", "list", "--json").out().lines().findFirst().orElseThrow());
    assertEquals("first", first.get("id").asText());
    assertEquals(2, first.get("pending").asLong());
    assertEquals(2, cli.run("batch", "list", "--limit", "0").exit());
  }

  @Test
  void statsCountWaitingJobsAndOpenBatchesOnAQueueThatHasThem() throws Exception {
    assertFalse(cli.run("stats").out().contains("waiting"), "a queue of plain jobs reads as before");
    flows.openBatch("b1");
    flows.enqueue("b1", List.of(job("a", "b1")));
    flows.enqueue(null, List.of(job("w", null, "a")));

    Cli.Result r = cli.run("stats");
    assertTrue(r.out().contains("  delayed 0   ready 1   in flight 0   dead 0   waiting 1   batches open 1\n"), r.out());
    JsonNode depths = new ObjectMapper().readTree(cli.run("stats", "--json").out()).get("depths");
    assertEquals(1, depths.get("waiting").asLong());
    assertEquals(1, depths.get("batchesOpen").asLong());
  }

  @Test
  void inspectOfAJobThatEndedWithAResultShowsHowItEndedAndTheResult() throws Exception {
    flows.enqueue(null, List.of(job("charge", null)));
    end("charge", "{\"charge\":\"ch_1\"}", false);

    Cli.Result r = cli.run("inspect", "charge");

    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("state       ENDED (done; its record is gone, its result is kept)\n"), r.out());
    assertTrue(r.out().matches("(?s).*ended       done at \\d{4}-.*Z \\(.* ago\\)\n.*"), r.out());
    assertTrue(r.out().contains("result      {\"charge\":\"ch_1\"}\n"), r.out());
    JsonNode json = new ObjectMapper().readTree(cli.run("inspect", "charge", "--json").out());
    assertEquals("ENDED", json.get("state").asText());
    assertEquals("{\"charge\":\"ch_1\"}", json.get("result").get("json").asText());
  }

  @Test
  void inspectOfAWaitingJobShowsItsPlaceAndTheIdsItStillWaitsFor() throws Exception {
    flows.enqueue(null, List.of(job("a", null), job("b\u001b[31m", null)));
    flows.enqueue(null, List.of(job("w", null, "a", "b\u001b[31m")));
    end("a", null, false);

    Cli.Result r = cli.run("inspect", "w");

    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("state       WAITING (for other jobs to end: b\\u001b[31m; "), r.out());
    assertTrue(r.out().contains("waits for   b\\u001b[31m\n"), "escaped, and a no longer there: " + r.out());
    assertTrue(r.out().contains("policy      fail"), r.out());
    assertTrue(r.out().contains("then due    0ms after the last of them ended\n"), r.out());
    assertFalse(r.out().contains("\ndue "), "no due time until it is released: " + r.out());
    assertFalse(r.out().contains("\u001b"), "no raw control character from job data");
    JsonNode json = new ObjectMapper().readTree(cli.run("inspect", "w", "--json").out());
    assertEquals("WAITING", json.get("state").asText());
    assertEquals("b\u001b[31m", json.get("waiting").get("waitsFor").get(0).asText());

    assertEquals("cancelled w\n", cli.run("cancel", "w").out(), "an operator ends a waiting job by cancelling it");
    assertEquals(List.of(), cli.probe.placesOf("w"));
  }

  @Test
  void batchCancelWithdrawsItsPendingJobsFiresNoCallbackAndASecondCancelExitsOne() throws Exception {
    flows.openBatch("b9");
    flows.enqueue("b9", List.of(job("k1", "b9"), job("k2", "b9")));
    flows.closeBatch("b9", callback("b9-ok"), callback("b9-done"));
    end("k1", null, false);

    Cli.Result r = cli.run("batch", "cancel", "b9");
    assertEquals(0, r.exit(), r.toString());
    assertEquals("cancelled batch b9: 1 done, 0 dead, 1 cancelled of 2\n", r.out());
    assertEquals(List.of(), new QueueProbe(cli.broker).placesOf("k2"));
    assertEquals(0, new QueueProbe(cli.broker).recordCount(), "no job left, and no callback");

    Cli.Result again = cli.run("batch", "cancel", "b9");
    assertEquals(1, again.exit(), again.toString());
    assertTrue(again.err().contains("batch b9 cannot be cancelled: it is cancelled"), again.err());
  }

  /** A batch id is an id as a job's is: one that begins with '-' goes after "--", and a bare one is told so. */
  @Test
  void aBatchIdThatBeginsWithADashGoesAfterTwoDashes() {
    flows.openBatch("-hB2x9LzA0b1c");

    Cli.Result bare = cli.run("batch", "inspect", "-hB2x9LzA0b1c");
    Cli.Result afterDashes = cli.run("batch", "inspect", "--json", "--", "-hB2x9LzA0b1c");
    Cli.Result cancelled = cli.run("batch", "cancel", "--", "-hB2x9LzA0b1c");

    assertEquals(2, bare.exit(), bare.toString());
    assertTrue(bare.err().contains("; an id that begins with '-' goes after '--': delayq batch inspect -- ID"),
        bare.err());
    assertEquals(0, afterDashes.exit(), afterDashes.toString());
    assertTrue(afterDashes.out().contains("\"state\":\"open\""), afterDashes.out());
    assertEquals(0, cancelled.exit(), cancelled.toString());
    assertTrue(cancelled.out().startsWith("cancelled batch -hB2x9LzA0b1c: "), cancelled.out());
  }
}
