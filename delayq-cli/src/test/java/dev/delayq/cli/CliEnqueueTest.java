package dev.delayq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code delayq enqueue}: one job from options, many from a JSON-lines file or stdin. */
class CliEnqueueTest {
  private final Cli cli = new Cli();

  @TempDir
  Path dir;

  @Test
  void enqueuePrintsTheIdAndTheJobIsDelayed() {
    Cli.Result r = cli.run("enqueue", "--type", "order_close", "--payload", "{\"order_id\":1001}",
        "--delay", "30m", "--id", "order-1001");

    assertEquals(0, r.exit(), r.toString());
    assertEquals("order-1001\n", r.out());
    assertEquals(List.of("delayed"), cli.probe.placesOf("order-1001"));
    assertEquals(1001, cli.probe.record("order-1001").get("payload").get("order_id").asInt());
  }

  @Test
  void enqueueAtAnInstantWithAnOffset() {
    Cli.Result r = cli.run("enqueue", "--type", "t", "--at", "2099-12-01T10:00:00+08:00", "--id", "x");

    assertEquals(0, r.exit(), r.toString());
    assertEquals(Instant.parse("2099-12-01T02:00:00Z").toEpochMilli(), cli.probe.dueAt("x"));
  }

  @Test
  void secondEnqueueWithTheSameIdSaysItChangedNothing() {
    cli.run("enqueue", "--type", "t", "--delay", "1h", "--id", "same");

    Cli.Result r = cli.run("enqueue", "--type", "t", "--delay", "5s", "--id", "same");

    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.err().contains("a job with id same is still pending: nothing changed"), r.toString());
  }

  @Test
  void badDurationIsOneLineAndExitTwo() {
    Cli.Result r = cli.run("enqueue", "--type", "t", "--delay", "30x");

    assertEquals(2, r.exit());
    assertEquals("delayq: '30x' is not a duration (write it like 250ms, 30s, 5m, 2h or 1d)\n", r.err());
    assertEquals(0, cli.probe.recordCount());
  }

  @Test
  void badJsonPayloadIsOneLineAndExitTwo() {
    Cli.Result r = cli.run("enqueue", "--type", "t", "--delay", "1s", "--payload", "{\"a\":");

    assertEquals(2, r.exit());
    assertTrue(r.err().startsWith("delayq: --payload is not JSON: "), r.err());
    assertEquals(1, r.err().lines().count(), r.err());
  }

  @Test
  void badInstantMissingTypeAndBothWhensAreRefused() {
    assertEquals(2, cli.run("enqueue", "--type", "t", "--at", "tomorrow").exit());
    assertEquals(2, cli.run("enqueue", "--delay", "1s").exit());
    Cli.Result both = cli.run("enqueue", "--type", "t", "--delay", "1s", "--at", "2030-01-01T00:00:00Z");
    assertEquals(2, both.exit());
    assertEquals("delayq: give --delay or --at, not both\n", both.err());
    assertEquals(2, cli.run("enqueue", "--type", "Bad Type", "--delay", "1s").exit());
    assertEquals(2, cli.run("enqueue", "--type", "t", "--delay", "1s", "--max-attempts", "0").exit());
    assertEquals(0, cli.probe.recordCount());
  }

  @Test
  void fileWithBadLinesInTheMiddleEnqueuesTheRestAndNamesEachBadLine() throws IOException {
    Path file = dir.resolve("jobs.jsonl");
    Files.writeString(file, String.join("\n",
        "{\"type\":\"order_close\",\"payload\":{\"order_id\":1},\"delay\":\"30s\",\"id\":\"a\"}",
        "{\"type\":\"order_close\",\"payload\":{\"order_id\":2},\"delay\":\"3x\"}",
        "this is not json",
        "",
        "{\"type\":\"report\",\"at\":\"2099-12-01T10:00:00+08:00\",\"id\":\"b\",\"maxAttempts\":3}",
        "{\"type\":\"report\",\"at\":\"yesterday\"}",
        "{\"type\":\"report\",\"delay\":\"1s\",\"dealy\":\"1s\"}",
        "[1,2]",
        "{\"type\":\"order_close\",\"payload\":{\"order_id\":1},\"delay\":\"1s\",\"id\":\"a\"}",
        "{\"type\":\"report\",\"payload\":{\"exact\":0.10},\"delay\":\"1h\",\"id\":\"c\"}") + "\n");

    Cli.Result r = cli.run("enqueue", "--file", file.toString());

    assertEquals(2, r.exit(), r.toString());
    List<String> lines = r.out().lines().toList();
    assertEquals("enqueued 3, duplicates 1 (1 still pending, 0 already finished, 0 dead), rejected 5 (of 9 lines)",
        lines.get(0));
    assertTrue(lines.get(1).startsWith("  line 2: '3x' is not a duration"), lines.get(1));
    assertTrue(lines.get(2).startsWith("  line 3: not JSON: "), lines.get(2));
    assertTrue(lines.get(3).startsWith("  line 6: \"at\" 'yesterday' is not an ISO-8601 instant"), lines.get(3));
    assertTrue(lines.get(4).startsWith("  line 7: unknown field dealy"), lines.get(4));
    assertEquals("  line 8: not a JSON object", lines.get(5));
    assertEquals(3, cli.probe.recordCount());
    assertEquals(3, cli.probe.record("b").get("maxAttempts").asInt());
    assertTrue(cli.probe.rawRecord("c").endsWith(",\"p\":{\"exact\":0.10}}"), cli.probe.rawRecord("c"));
    assertEquals("", r.err(), "no progress lines for a file of one batch");
  }

  @Test
  void stdinWorksLikeAFile() {
    String jobs = "{\"type\":\"t\",\"delay\":\"1m\"}\n{\"type\":\"t\",\"delay\":\"2m\"}\n{oops\n";

    Cli.Result r = cli.runWithStdin(jobs, "enqueue", "--file", "-");

    assertEquals(2, r.exit(), r.toString());
    assertTrue(r.out().startsWith("enqueued 2, duplicates 0, rejected 1 (of 3 lines)\n  line 3: not JSON"), r.out());
    assertEquals(2, cli.probe.delayedIds().size());
  }

  @Test
  void bigFileGoesInBatchesWithPlainProgressLinesAndAnOversizedPayloadRejectedAlone() throws IOException {
    cli.env.put("DELAYQ_QUEUE_MAX_PAYLOAD_BYTES", "100");
    StringBuilder text = new StringBuilder();
    int n = 2500;
    for (int i = 1; i <= n; i++) {
      String payload = i == 1500 ? "{\"big\":\"" + "x".repeat(200) + "\"}" : "{\"n\":" + i + "}";
      text.append("{\"type\":\"t\",\"payload\":").append(payload).append(",\"delay\":\"1h\"}\n");
    }
    Path file = dir.resolve("big.jsonl");
    Files.writeString(file, text);

    Cli.Result r = cli.run("enqueue", "-f", file.toString());

    assertEquals(2, r.exit(), r.toString());
    assertTrue(r.out().startsWith("enqueued 2499, duplicates 0, rejected 1 (of 2500 lines)\n"
        + "  line 1500: payload is 210 bytes, over the limit of 100 bytes"), r.out());
    assertEquals(2499, cli.probe.recordCount());
    assertEquals(List.of("delayq: 1000 lines: 1000 enqueued, 0 duplicate, 0 rejected",
        "delayq: 2000 lines: 1999 enqueued, 0 duplicate, 1 rejected",
        "delayq: 2500 lines: 2499 enqueued, 0 duplicate, 1 rejected"), r.err().lines().toList());
  }

  @Test
  void fileThatDoesNotExistOrComesWithJobOptionsIsRefused() {
    Cli.Result missing = cli.run("enqueue", "--file", dir.resolve("nope.jsonl").toString());
    assertEquals(2, missing.exit());
    assertTrue(missing.err().endsWith("nope.jsonl: not found\n"), missing.err());

    Cli.Result mixed = cli.run("enqueue", "--file", "-", "--type", "t");
    assertEquals(2, mixed.exit());
    assertTrue(mixed.err().startsWith("delayq: --file takes every job from the file"), mixed.err());
  }

  @Test
  void redisUnreachableIsOneLineAndExitThree() throws IOException {
    Cli down = Cli.unreachable();

    Cli.Result r = down.run("enqueue", "--type", "t", "--delay", "1s");

    assertEquals(3, r.exit());
    assertTrue(r.err().matches("delayq: cannot reach Redis at redis://127\\.0\\.0\\.1:\\d+: Connection refused\n"), r.err());
    assertEquals(3, down.runWithStdin("{\"type\":\"t\",\"delay\":\"1s\"}\n", "enqueue", "--file", "-").exit());
  }
}
