package dev.delayq.e2e;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.worker.Worker;
import java.util.List;

/**
 * An app with an in-app worker (and nothing else) whose handler holds its job for ten minutes,
 * saying "started <id>" on stdout: the JVM a test kills with -9 while it holds jobs.
 */
public final class HoldingWorkerApp {
  private HoldingWorkerApp() {}

  public static void main(String[] args) throws Exception {
    DelayqConfig config = ConfigLoader.fromEnvironment();
    RedisConnection redis = RedisConnector.connect(config, "holding-app", config.worker().threads() + 4);
    JobHandler holds = new JobHandler() {
      @Override
      public String type() {
        return args[0];
      }

      @Override
      public JobResult handle(JobContext job) throws InterruptedException {
        System.out.println("started " + job.id());
        System.out.flush();
        Thread.sleep(600_000);
        return JobResult.done();
      }
    };
    Worker worker = Worker.inApp(config, redis, List.of(holds));
    worker.start();
    Thread.currentThread().join();
  }
}
