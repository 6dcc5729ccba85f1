package dev.delayq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.delayq.redis.JobRecord;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.Workflows;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code delayq check} names a workflow's breach, and {@code delayq recover} says what it repaired. */
class CliWorkflowRepairTest {
  private final Cli cli = new Cli();
  private final Workflows flows = cli.broker.workflows();

  private static String head() {
    return JobRecord.newHead(QueueProbe.TYPE, 3, false, Map.of(), ",\"wf\":1");
  }

  @Test
  void aBatchThatNeverFiredIsNamedByCheckAndFinishedByRecover() {
    flows.openBatch("nightly");
    flows.enqueue("nightly", List.of(new Workflows.FlowJob(
        new NewJob("m1", JobRecord.newHead(QueueProbe.TYPE, 3, false, Map.of(), ",\"b\":\"nightly\",\"wf\":1"),
            "{}", 0, false), List.of(), "fail")));
    flows.closeBatch("nightly", new Workflows.Callback("reindex", head(), "{}", 0), null);
    // m1 ended and was counted, and the batch was left unfinished
    RedisFixture.get().redis().lrem(cli.keys.ready(), 0, "m1");
    RedisFixture.get().redis().hdel(cli.keys.jobs(), "m1");
    RedisFixture.get().redis().srem(cli.keys.batchPending("nightly"), "m1");

    Cli.Result check = cli.run("check");

    assertEquals(1, check.exit(), check.toString());
    assertEquals("breach BATCH_NOT_FIRED: batch nightly: closed with no job pending, but its callback was never "
        + "enqueued\n", check.out());

    Cli.Result r = cli.run("recover");

    assertEquals(0, r.exit(), r.toString());
    assertEquals(List.of("workflows: 0 waiting jobs released, 0 dead by their policy, 0 waiting entries without a "
        + "record removed; 0 lost batch jobs counted, 1 batches finished (callback enqueued)",
        "  repaired: batch nightly: finished: its callback reindex enqueued"), r.out().lines().skip(3).toList());
    assertEquals(List.of("ready"), cli.probe.placesOf("reindex"));
    assertEquals(0, cli.run("check").exit());
  }
}
