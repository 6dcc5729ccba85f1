package dev.delayq.test;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.job.RetryPolicy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** A test's handler as the engine runs it, counted; its type, time limit and retries unchanged. */
final class CountingHandler implements JobHandler {
  /** The counts of every handler of one test queue. */
  static final class Counts {
    private final AtomicInteger ran = new AtomicInteger();
    private final AtomicInteger succeeded = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();

    Runs snapshot() {
      return new Runs(ran.get(), succeeded.get(), failed.get());
    }
  }

  private final JobHandler handler;
  private final Counts counts;

  CountingHandler(JobHandler handler, Counts counts) {
    this.handler = handler;
    this.counts = counts;
  }

  @Override
  public String type() {
    return handler.type();
  }

  @Override
  public JobResult handle(JobContext context) throws Exception {
    counts.ran.incrementAndGet();
    try {
      JobResult result = handler.handle(context);
      (result == null ? counts.failed : counts.succeeded).incrementAndGet();
      return result;
    } catch (Exception | Error e) {
      counts.failed.incrementAndGet();
      throw e;
    }
  }

  @Override
  public Optional<Duration> timeLimit() {
    return handler.timeLimit();
  }

  @Override
  public Optional<RetryPolicy> retryPolicy() {
    return handler.retryPolicy();
  }
}
