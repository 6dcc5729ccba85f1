package dev.delayq.spring;

import dev.delayq.config.DelayqConfig;
import dev.delayq.scheduler.Scheduler;
import org.springframework.context.SmartLifecycle;

/**
 * The scheduler engine in the app, as part of the context's lifecycle
 * ({@code delayq.scheduler.enabled=true}): it moves due jobs to ready, recovers the jobs of
 * consumers whose heartbeat expired and ticks schedules while it holds the queue's lease, and
 * stands by while another instance (or a supervised scheduler) holds it. It has a Redis
 * connection of its own, most of it blocked in wake waits, so the app's pool stays free. At
 * context shutdown it gives the lease back at once, so that a standby takes over without waiting
 * out {@code scheduler.leaseTtl}: a rolling deploy hands over as it goes.
 */
final class DelayqSchedulerLifecycle implements SmartLifecycle {
  private final DelayqConfig config;
  private volatile Scheduler scheduler;

  DelayqSchedulerLifecycle(DelayqConfig config) {
    this.config = config;
  }

  @Override
  public void start() {
    scheduler = Scheduler.inApp(config);
  }

  @Override
  public void stop() {
    Scheduler s = scheduler;
    if (s != null) {
      s.close();
      scheduler = null;
    }
  }

  @Override
  public boolean isRunning() {
    return scheduler != null;
  }

  /** The engine, while it runs. */
  Scheduler scheduler() {
    return scheduler;
  }
}
