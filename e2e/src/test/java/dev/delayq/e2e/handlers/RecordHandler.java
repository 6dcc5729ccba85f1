package dev.delayq.e2e.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/** test_record: records its start, sleeps "sleepMs" (interruptibly), succeeds. */
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
    return JobResult.done();
  }
}
