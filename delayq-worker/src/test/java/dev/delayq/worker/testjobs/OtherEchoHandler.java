package dev.delayq.worker.testjobs;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/** A second handler claiming {@link EchoHandler}'s type: the registry must refuse the pair. */
public final class OtherEchoHandler implements JobHandler {
  @Override
  public String type() {
    return "echo";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    return JobResult.done();
  }
}
