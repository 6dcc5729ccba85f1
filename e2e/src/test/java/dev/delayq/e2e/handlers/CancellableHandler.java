package dev.delayq.e2e.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;

/**
 * test_cancellable: records its start, then sleeps in 5 ms steps until {@link JobContext#isCancelled()}
 * (or "runMs" passes); when it sees the cancel it pushes the time to the Redis list "seen" names.
 */
public final class CancellableHandler implements JobHandler {
  @Override
  public String type() {
    return "test_cancellable";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    Recorder.record(ctx);
    long until = System.nanoTime() + ctx.payload().path("runMs").asLong(30_000) * 1_000_000;
    while (System.nanoTime() < until) {
      if (ctx.isCancelled()) {
        Recorder.push(ctx.payload().path("seen").asText(), Long.toString(System.currentTimeMillis()));
        return JobResult.done();
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        // the cancel interrupts the sleep; the flag says why
      }
    }
    return JobResult.done();
  }
}
