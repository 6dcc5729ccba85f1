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
 * A job that fails until a file exists, for the dead-job tests: payload
 * {@code {"unlock":"/abs/unlocked","log":"/abs/runs.log"}}. While {@code unlock} is missing it
 * throws (so with maxAttempts 1 it goes dead at once); once the test creates the file, a retry
 * succeeds and appends {@code done <id> <attempt> <pid>} to the log. Shipped in the jar
 * {@link JobsJar} writes.
 */
public final class FlakyHandler implements JobHandler {
  private static final long PID = ProcessHandle.current().pid();

  @Override
  public String type() {
    return "test_flaky";
  }

  @Override
  public JobResult handle(JobContext ctx) throws Exception {
    JsonNode payload = ctx.payload();
    Path unlock = Path.of(payload.path("unlock").asText());
    if (!Files.exists(unlock)) {
      throw new IllegalStateException("locked: " + unlock + " does not exist yet");
    }
    Files.write(Path.of(payload.path("log").asText()),
        ("done " + ctx.id() + " " + ctx.attempt() + " " + PID + "\n").getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    return JobResult.done();
  }
}
