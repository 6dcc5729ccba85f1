package dev.delayq.e2e.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import java.time.Duration;
import java.util.Optional;

/** test_bad_limit: a handler whose timeLimit() throws (a broken setting, not a failed run). */
public final class BadLimitHandler implements JobHandler {
  @Override
  public String type() {
    return "test_bad_limit";
  }

  @Override
  public Optional<Duration> timeLimit() {
    throw new IllegalStateException("limits.properties is missing");
  }

  @Override
  public JobResult handle(JobContext ctx) {
    Recorder.record(ctx);
    return JobResult.done();
  }
}
