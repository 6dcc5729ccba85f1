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
 * A job that takes a while, for the end-to-end tests: payload {@code {"ms":3000,"log":"/abs/runs.log"}},
 * with {@code "gate":"/abs/file"} it waits after its start line until that file exists (at most
 * two minutes), so that a test holds its jobs running until the moment it wants.
 * It appends {@code start <id> <attempt> <pid>} and {@code end <id> <attempt> <pid>} lines to the
 * log, so a test sees where and how often each job ran. Shipped to the worker as a jar in
 * {@code jobs/}, built by {@link JobsJar}.
 */
public final class SleepHandler implements JobHandler {
  private static final long PID = ProcessHandle.current().pid();

  @Override
  public String type() {
    return "test_sleep";
  }

  @Override
  public JobResult handle(JobContext ctx) throws Exception {
    return sleepNoting(ctx, false);
  }

  /**
   * Sleeps the payload's {@code ms} between a start and an end line in its {@code log}; with
   * {@code withTime} each line ends in the epoch ms it was written at ({@link TimedHandler}).
   */
  static JobResult sleepNoting(JobContext ctx, boolean withTime) throws Exception {
    JsonNode payload = ctx.payload();
    Path log = Path.of(payload.path("log").asText());
    note(log, "start", ctx, withTime);
    if (payload.hasNonNull("gate")) {
      Path gate = Path.of(payload.path("gate").asText());
      long until = System.nanoTime() + 120_000_000_000L;
      while (!Files.exists(gate) && System.nanoTime() < until) {
        Thread.sleep(10);
      }
    }
    long ms = payload.path("ms").asLong(0);
    if (ms > 0) {
      Thread.sleep(ms);
    }
    note(log, "end", ctx, withTime);
    return JobResult.done();
  }

  private static void note(Path log, String what, JobContext ctx, boolean withTime) throws Exception {
    String line = what + " " + ctx.id() + " " + ctx.attempt() + " " + PID
        + (withTime ? " " + System.currentTimeMillis() : "") + "\n";
    // one short write with O_APPEND: lines from several processes do not interleave
    Files.write(log, line.getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
  }
}
