package dev.delayq.worker;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs handlers for one consumer under a time limit, on a thread of its own so the limit can
 * be enforced: past the limit the handler is interrupted, and past the grace after that it is
 * declared stuck (a JVM cannot kill a thread; the worker then exits and its job is recovered).
 */
final class JobRunner implements AutoCloseable {
  private final ExecutorService thread;

  JobRunner(String name) {
    thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  RunResult run(JobHandler handler, JobContext context, Duration limit, Duration grace)
      throws InterruptedException {
    CountDownLatch ended = new CountDownLatch(1);
    Future<JobResult> run = thread.submit(() -> {
      try {
        return handler.handle(context);
      } finally {
        ended.countDown();
      }
    });
    try {
      JobResult result = run.get(limit.toNanos(), TimeUnit.NANOSECONDS);
      if (result == null) {
        return new RunResult.Threw(new IllegalStateException(
            handler.getClass().getName() + ".handle returned null instead of a JobResult"));
      }
      return new RunResult.Returned(result);
    } catch (ExecutionException e) {
      return new RunResult.Threw(e.getCause());
    } catch (TimeoutException e) {
      run.cancel(true);
      if (ended.await(grace.toNanos(), TimeUnit.NANOSECONDS)) {
        return new RunResult.TimedOut(limit);
      }
      return new RunResult.Stuck(limit, grace);
    } catch (InterruptedException e) {
      run.cancel(true);
      throw e;
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
