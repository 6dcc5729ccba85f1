package dev.delayq.e2e.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import java.time.Duration;

/**
 * test_reschedule: polls like a payment check: records its start and asks to run again after
 * "everyMs" until the run counter (kept in Redis under "log":count) reaches "times".
 */
public final class RescheduleHandler implements JobHandler {
  @Override
  public String type() {
    return "test_reschedule";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    Recorder.record(ctx);
    long runs = Recorder.count(ctx.payload().path("log").asText() + ":count");
    if (runs < ctx.payload().path("times").asInt(1)) {
      return JobResult.rescheduleIn(Duration.ofMillis(ctx.payload().path("everyMs").asLong(100)));
    }
    return JobResult.done();
  }
}
