package dev.delayq.worker.testjobs;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/** Always fails: its jobs are retried, then dead-lettered. */
public final class BoomHandler implements JobHandler {
  @Override
  public String type() {
    return "boom";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    throw new IllegalStateException("boom on attempt " + ctx.attempt());
  }
}
