package dev.delayq.worker.testjobs;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/**
 * A job type that exists only in a jar a test writes into a jobs directory: the class is on the
 * test classpath, but its ServiceLoader entry is only in that jar.
 */
public final class EchoHandler implements JobHandler {
  @Override
  public String type() {
    return "echo";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    return JobResult.done();
  }
}
