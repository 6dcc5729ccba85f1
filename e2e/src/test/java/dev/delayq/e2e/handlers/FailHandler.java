package dev.delayq.e2e.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/** test_fail: records its start and throws until attempt "succeedOn" (never, when absent). */
public final class FailHandler implements JobHandler {
  @Override
  public String type() {
    return "test_fail";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    Recorder.record(ctx);
    int succeedOn = ctx.payload().path("succeedOn").asInt(Integer.MAX_VALUE);
    if (ctx.attempt() < succeedOn) {
      throw new IllegalStateException("payment provider unavailable (attempt " + ctx.attempt() + ")");
    }
    return JobResult.done();
  }
}
