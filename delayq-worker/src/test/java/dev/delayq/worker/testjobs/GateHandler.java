package dev.delayq.worker.testjobs;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs until the test opens the gate (at most 10 s): a slow job whose end the test controls.
 * The class is loaded from the test classpath even through a jobs jar, so the gate is shared.
 */
public final class GateHandler implements JobHandler {
  private static volatile CountDownLatch gate = new CountDownLatch(1);
  private static final CountDownLatch NEVER = new CountDownLatch(1);
  private static volatile CountDownLatch entered = NEVER;

  /** Closes the gate for the next jobs. */
  public static void close() {
    gate = new CountDownLatch(1);
    entered = new CountDownLatch(1);
  }

  public static void open() {
    gate.countDown();
  }

  /** True once a job is inside the handler, waiting at the gate. */
  public static boolean isRunning() {
    return entered.getCount() == 0;
  }

  @Override
  public String type() {
    return "gate";
  }

  @Override
  public JobResult handle(JobContext ctx) throws InterruptedException {
    entered.countDown();
    gate.await(10, TimeUnit.SECONDS);
    return JobResult.done();
  }
}
