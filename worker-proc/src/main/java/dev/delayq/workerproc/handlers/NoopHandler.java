package dev.delayq.workerproc.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/** Does nothing: the job type benchmarks use to measure the queue, not the handler. */
public final class NoopHandler implements JobHandler {
  @Override
  public String type() {
    return "noop";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    return JobResult.done();
  }
}
