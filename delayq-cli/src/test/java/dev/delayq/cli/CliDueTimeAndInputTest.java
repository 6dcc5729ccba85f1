package dev.delayq.cli;

import dev.delayq.testing.RedisFixture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad due times and bad text at the CLI: a due time out of range (overflowing delays included) is
 * exit 2 with the limit, a past --at says what it does, and in a jobs file a line with a bad due
 * time, bytes that are not UTF-8 or a lone surrogate is rejected by number while the rest go in.
 */
class CliDueTimeAndInputTest {
  private static final String LIMIT = "due times run from the epoch (1970-01-01T00:00:00Z) to 9999-12-31T23:59:59.999Z";

  private final Cli cli = new Cli();

  @TempDir
  Path dir;

  @Test
  void overflowingAndFarDelaysAreExitTwoNamingTheLimit() {
    for (String delay : List.of("9223372036854775807s", "9223372036854775807ms", "60000000d")) {
      Cli.Result r = cli.run("enqueue", "--type", "t", "--delay", delay);

      assertEquals(2, r.exit(), r.toString());
      assertTrue(r.err().startsWith("delayq: delay " + delay + " is too long: " + LIMIT + ", so a delay from now is at most "),
          r.err());
      assertEquals(1, r.err().lines().count(), r.err());
    }
    Cli.Result at = cli.run("enqueue", "--type", "t", "--at", "+200000-01-01T00:00:00Z");
    assertEquals(2, at.exit(), at.toString());
    assertEquals("delayq: due time +200000-01-01T00:00:00Z is out of range: " + LIMIT + "\n", at.err());
    assertEquals(0, cli.probe.recordCount());
  }

  @Test
  void aPayloadWithALoneSurrogateIsExitTwoNamingItsIndex() {
    Cli.Result r = cli.run("enqueue", "--type", "t", "--delay", "1s", "--payload", "{\"name\":\"\\udc00\"}");

    assertEquals(2, r.exit(), r.toString());
    assertTrue(r.err().startsWith("delayq: payload holds a lone surrogate, U+DC00, at index 9: "), r.err());
    assertEquals(0, cli.probe.recordCount(), "not stored as '?'");
  }

  @Test
  void reschedulePastTheRangeIsExitTwoAndChangesNothing() {
    long due = cli.probe.seedDelayed("j", 60_000);

    Cli.Result r = cli.run("reschedule", "j", "--delay", "9223372036854775807s");

    assertEquals(2, r.exit(), r.toString());
    assertTrue(r.err().contains(LIMIT), r.err());
    assertEquals(due, cli.probe.dueAt("j"));
  }

  @Test
  void aPastAtIsTakenAndSaidToBeDueNow() {
    Cli.Result r = cli.run("enqueue", "--type", "t", "--at", "2020-01-01T00:00:00Z", "--id", "past");

    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.err().matches("delayq: notice: --at 2020-01-01T00:00:00Z is in the past \\(\\d+s ago\\): "
        + "the job is due now and runs as soon as a worker takes it\n"), r.err());
    assertEquals(List.of("ready"), cli.probe.placesOf("past"));

    Cli.Result future = cli.run("enqueue", "--type", "t", "--at", "2099-01-01T00:00:00Z");
    assertEquals("", future.err());
  }

  @Test
  void aFileLineWithABadDueTimeBadUtf8OrALoneSurrogateIsRejectedByNumberAndTheRestGoIn() throws IOException {
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    file.writeBytes(line("{\"type\":\"t\",\"delay\":\"1h\",\"id\":\"a\"}"));
    file.writeBytes(line("{\"type\":\"t\",\"delay\":\"9223372036854775807s\"}"));
    file.writeBytes(line("{\"type\":\"t\",\"delay\":\"1h\",\"id\":\"b\"}"));
    // Latin-1 é (0xE9) where UTF-8 needs two bytes
    byte[] latin1 = "{\"type\":\"t\",\"payload\":{\"name\":\"Ren\u00e9\"},\"delay\":\"1h\"}\n".getBytes(StandardCharsets.ISO_8859_1);
    file.writeBytes(latin1);
    file.writeBytes(line("{\"type\":\"t\",\"payload\":{\"s\":\"\\ud800\"},\"delay\":\"1h\"}"));
    file.writeBytes(line("{\"type\":\"t\",\"at\":\"+200000-01-01T00:00:00Z\"}"));
    file.writeBytes(line("{\"type\":\"t\",\"delay\":\"1h\",\"id\":\"c\"}"));
    Path jobs = dir.resolve("jobs.jsonl");
    Files.write(jobs, file.toByteArray());

    Cli.Result r = cli.run("enqueue", "--file", jobs.toString());

    assertEquals(2, r.exit(), r.toString());
    List<String> out = r.out().lines().toList();
    assertEquals("enqueued 3, duplicates 0, rejected 4 (of 7 lines)", out.get(0));
    assertTrue(out.get(1).startsWith("  line 2: delay 9223372036854775807s is too long: " + LIMIT), out.get(1));
    assertEquals("  line 4: not valid UTF-8 at byte offset 34 of the line (byte 0xe9)", out.get(2));
    assertTrue(out.get(3).startsWith("  line 5: payload holds a lone surrogate, U+D800, at index 6"), out.get(3));
    assertEquals("  line 6: due time +200000-01-01T00:00:00Z is out of range: " + LIMIT, out.get(4));
    assertEquals(List.of("delayed"), cli.probe.placesOf("c"));
    assertEquals(3, cli.probe.recordCount());
  }

  @Test
  void anOverflowedJobLeftInRedisIsCheckedThenDeadWithItsReasonAndInspectable() {
    dev.delayq.testing.OutOfRangeRecords.plantOverflowed(RedisFixture.get().redis(), cli.keys, "overflowed", "t", "{\"n\":1}");

    Cli.Result check = cli.run("check");
    cli.broker.scheduling().moveDueToReady(1000);
    Cli.Result inspect = cli.run("inspect", "overflowed");

    assertEquals(1, check.exit(), check.toString());
    assertTrue(check.out().contains("breach OUT_OF_RANGE: overflowed: delayed with a due time out of range (9.2233720368548"),
        check.out());
    assertEquals(0, inspect.exit(), inspect.toString());
    assertTrue(inspect.out().contains("state       DEAD"), inspect.out());
    assertTrue(inspect.out().contains("type        t\n"), inspect.out());
    assertTrue(inspect.out().contains("is out of range: due times run from the epoch to 9999-12-31T23:59:59.999Z"), inspect.out());
    assertEquals(0, cli.run("check").exit());
  }

  @Test
  void aLineLongerThanTwiceThePayloadLimitIsRejectedWithoutStoppingTheRest() {
    cli.env.put("DELAYQ_QUEUE_MAX_PAYLOAD_BYTES", "100");
    String jobs = "{\"type\":\"t\",\"payload\":\"" + "x".repeat(70_000) + "\",\"delay\":\"1h\"}\n"
        + "{\"type\":\"t\",\"delay\":\"1h\"}\n";

    Cli.Result r = cli.runWithStdin(jobs, "enqueue", "--file", "-");

    assertEquals(2, r.exit(), r.out() + r.err());
    assertTrue(r.out().startsWith("enqueued 1, duplicates 0, rejected 1 (of 2 lines)\n"
        + "  line 1: line is longer than 65736 bytes (twice queue.maxPayloadBytes, plus 64 KiB)"), r.out());
  }

  private static byte[] line(String text) {
    return (text + "\n").getBytes(StandardCharsets.UTF_8);
  }
}
