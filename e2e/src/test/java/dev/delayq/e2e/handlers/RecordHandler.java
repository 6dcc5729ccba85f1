package dev.delayq.e2e.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/**
 * test_record: records its start, sleeps "sleepMs" (interruptibly), succeeds; except that on
 * attempt "failOnAttempt" (when given) it fails instead.
 */
public final class RecordHandler implements JobHandler {
  @Override
  public String type() {
    return "test_record";
  }

  @Override
  public JobResult handle(JobContext ctx) throws InterruptedException {
    Recorder.record(ctx);
    long sleep = ctx.payload().path("sleepMs").asLong(0);
    if (sleep > 0) {
      Thread.sleep(sleep);
    }
    if (ctx.attempt() == ctx.payload().path("failOnAttempt").asInt(0)) {
      throw new IllegalStateException("test_record fails on attempt " + ctx.attempt() + " by request");
    }
    return JobResult.done();
  }
}
