package dev.delayq.worker.testjobs;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records the id and attempt of every job it runs, in order; the test reads and clears them. */
public final class CountingHandler implements JobHandler {
  private static final List<String> RUNS = new CopyOnWriteArrayList<>();

  public static List<String> runs() {
    return List.copyOf(RUNS);
  }

  public static void clear() {
    RUNS.clear();
  }

  @Override
  public String type() {
    return "count";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    RUNS.add(ctx.id() + "#" + ctx.attempt());
    return JobResult.done();
  }
}
