package dev.delayq.supervisor.testjobs;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/**
 * {@link SleepHandler} with the time: type {@code test_timed}, payload as test_sleep's, lines
 * {@code start|end <id> <attempt> <pid> <epoch ms>}, for the tests that count starts per second
 * or runs at once (rate limits, concurrency caps).
 */
public final class TimedHandler implements JobHandler {
  @Override
  public String type() {
    return "test_timed";
  }

  @Override
  public JobResult handle(JobContext ctx) throws Exception {
    return SleepHandler.sleepNoting(ctx, true);
  }
}
