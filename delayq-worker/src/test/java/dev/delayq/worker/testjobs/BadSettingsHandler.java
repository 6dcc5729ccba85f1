package dev.delayq.worker.testjobs;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.job.RetryPolicy;
import java.time.Duration;
import java.util.Optional;

/**
 * A handler whose worker-facing settings are broken: "bad_limit" has a timeLimit() that throws,
 * "bad_policy" a retryPolicy() that throws (and a handle() that fails, so it is asked for), and
 * "forever" asks to run again after a delay no millisecond count holds.
 */
public final class BadSettingsHandler {
  private BadSettingsHandler() {}

  public static final class BadLimit implements JobHandler {
    @Override
    public String type() {
      return "bad_limit";
    }

    @Override
    public Optional<Duration> timeLimit() {
      throw new IllegalStateException("no limit configured for bad_limit");
    }

    @Override
    public JobResult handle(JobContext ctx) {
      return JobResult.done();
    }
  }

  public static final class BadPolicy implements JobHandler {
    @Override
    public String type() {
      return "bad_policy";
    }

    @Override
    public Optional<RetryPolicy> retryPolicy() {
      throw new IllegalStateException("policy store unreachable");
    }

    @Override
    public JobResult handle(JobContext ctx) {
      throw new IllegalStateException("bad_policy fails on attempt " + ctx.attempt());
    }
  }

  public static final class Forever implements JobHandler {
    @Override
    public String type() {
      return "forever";
    }

    @Override
    public JobResult handle(JobContext ctx) {
      return JobResult.rescheduleIn(Duration.ofSeconds(Long.MAX_VALUE));
    }
  }
}
