package dev.delayq.spring;

import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobHandler;
import dev.delayq.redis.RedisConnection;
import dev.delayq.worker.Worker;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The in-app worker as part of the context's lifecycle: it starts once every bean is ready and
 * stops first at shutdown (the highest phase), draining before the beans its handlers use go
 * away: no new claims, running jobs get {@code delayq.worker.drainTimeout}, the rest go back
 * uncharged.
 */
final class DelayqWorkerLifecycle implements SmartLifecycle {
  private static final Logger log = LoggerFactory.getLogger(DelayqWorkerLifecycle.class);

  private final DelayqConfig config;
  private final RedisConnection redis;
  private final Supplier<List<JobHandler>> handlers;
  private volatile Worker worker;

  /**
   * {@code handlers} is asked at {@link #start}, once every bean exists: the handler methods of
   * beans made after this one are among them.
   */
  DelayqWorkerLifecycle(DelayqConfig config, RedisConnection redis, Supplier<List<JobHandler>> handlers) {
    this.config = config;
    this.redis = redis;
    this.handlers = handlers;
  }

  @Override
  public void start() {
    Worker w = Worker.inApp(config, redis, handlers.get());
    w.start();
    worker = w;
    log.info("delayq: in-app worker started {} consumers on queue {} at {}; job types: {}",
        config.worker().threads(), config.queue().name(), redis.describe(), w.types());
  }

  @Override
  public void stop() {
    Worker w = worker;
    if (w != null) {
      w.close();
      worker = null;
      log.info("delayq: in-app worker stopped");
    }
  }

  @Override
  public boolean isRunning() {
    return worker != null;
  }

  /** The engine, while it runs (the health indicator reads its failure). */
  Worker worker() {
    return worker;
  }
}
