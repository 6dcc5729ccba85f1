package dev.delayq.supervisor.testjobs;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/** {@link SleepHandler} under a second type, {@code test_other}: the type a pause of test_sleep leaves running. */
public final class OtherSleepHandler implements JobHandler {
  private final SleepHandler sleep = new SleepHandler();

  @Override
  public String type() {
    return "test_other";
  }

  @Override
  public JobResult handle(JobContext ctx) throws Exception {
    return sleep.handle(ctx);
  }
}
