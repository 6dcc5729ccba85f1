package dev.delayq.worker.testjobs;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/** Declares a type outside [a-z0-9_.:-]{1,64}: the registry must refuse it. */
public final class BadTypeHandler implements JobHandler {
  @Override
  public String type() {
    return "Order Close!";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    return JobResult.done();
  }
}
