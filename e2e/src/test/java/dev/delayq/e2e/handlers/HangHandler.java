package dev.delayq.e2e.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/** test_hang: records its start, then spins for "spinMs" ignoring every interruption. */
public final class HangHandler implements JobHandler {
  @Override
  public String type() {
    return "test_hang";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    Recorder.record(ctx);
    long until = System.nanoTime() + ctx.payload().path("spinMs").asLong(60_000) * 1_000_000;
    while (System.nanoTime() < until) {
      Thread.interrupted(); // swallow the interruption, as a badly written handler does
      Thread.onSpinWait();
    }
    return JobResult.done();
  }
}
