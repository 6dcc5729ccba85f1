package dev.delayq.supervisor.testjobs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@link SleepHandler} with the time: type {@code test_timed}, payload as test_sleep's, lines
 * {@code start|end <id> <attempt> <pid> <epoch ms>}, for the tests that count starts per second
 * or runs at once (rate limits, concurrency caps).
 */
public final class TimedHandler implements JobHandler {
  private static final long PID = ProcessHandle.current().pid();

  @Override
  public String type() {
    return "test_timed";
  }

  @Override
  public JobResult handle(JobContext ctx) throws Exception {
    JsonNode payload = ctx.payload();
    Path log = Path.of(payload.path("log").asText());
    note(log, "start", ctx);
    long ms = payload.path("ms").asLong(0);
    if (ms > 0) {
      Thread.sleep(ms);
    }
    note(log, "end", ctx);
    return JobResult.done();
  }

  private static void note(Path log, String what, JobContext ctx) throws Exception {
    // one short write with O_APPEND: lines from several processes do not interleave
    Files.write(log, (what + " " + ctx.id() + " " + ctx.attempt() + " " + PID + " " + System.currentTimeMillis()
        + "\n").getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND,
        StandardOpenOption.WRITE);
  }
}
