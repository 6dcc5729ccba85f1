package dev.delayq.e2e.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/**
 * test_probe: records its start and succeeds. Not in this module's service file, so no worker
 * runs it unless a jar in its jobs directory names it (a rolling deploy that adds the type) or an
 * app hands it to an in-app worker.
 */
public final class ProbeHandler implements JobHandler {
  @Override
  public String type() {
    return "test_probe";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    Recorder.record(ctx);
    return JobResult.done();
  }
}
