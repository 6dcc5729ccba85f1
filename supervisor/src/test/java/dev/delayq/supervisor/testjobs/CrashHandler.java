package dev.delayq.supervisor.testjobs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A poison pill: payload {@code {"how":"halt"|"exit"|"oom","log":"/abs/runs.log"}}. It appends
 * {@code start <id> <attempt> <pid>} to the log, then ends its worker every time it runs: with
 * Runtime.halt (as a SIGKILL would: no hook runs), with System.exit, or by allocating past the
 * heap. Shipped in the jar {@link JobsJar} writes.
 */
public final class CrashHandler implements JobHandler {
  private static final long PID = ProcessHandle.current().pid();

  @Override
  public String type() {
    return "test_crash";
  }

  @Override
  public JobResult handle(JobContext ctx) throws Exception {
    JsonNode payload = ctx.payload();
    Files.write(Path.of(payload.path("log").asText()),
        ("start " + ctx.id() + " " + ctx.attempt() + " " + PID + "\n").getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    switch (payload.path("how").asText()) {
      case "halt" -> Runtime.getRuntime().halt(99);
      case "exit" -> System.exit(3);
      case "oom" -> {
        List<long[]> hog = new ArrayList<>();
        while (true) {
          hog.add(new long[16 * 1024 * 1024]);
        }
      }
      default -> throw new IllegalArgumentException("how: halt, exit or oom");
    }
    return JobResult.done();
  }
}
