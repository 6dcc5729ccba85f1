package dev.delayq.spring;

import dev.delayq.EnqueueResult;
import dev.delayq.JobRequest;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.job.RetryPolicy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The app's delayq meters, tagged by job type and queue: {@code delayq.jobs.enqueued} (accepted,
 * not duplicates), {@code delayq.jobs.run} (handler calls), {@code delayq.jobs.failed} (calls that
 * threw or ran out of time) and {@code delayq.jobs.lateness} (start minus due time). The
 * supervised workers' own figures stay on the supervisor's /metrics.
 */
final class MicrometerJobObserver implements JobObserver {
  private final MeterRegistry registry;
  private final String queue;

  MicrometerJobObserver(MeterRegistry registry, String queue) {
    this.registry = registry;
    this.queue = queue;
  }

  @Override
  public void enqueued(JobRequest request, EnqueueResult result) {
    if (result.accepted()) {
      counter("delayq.jobs.enqueued", "Jobs this app enqueued (duplicates of a stored id not counted)",
          request.type()).increment();
    }
  }

  @Override
  public JobHandler observe(JobHandler handler) {
    return new Observed(handler);
  }

  private Counter counter(String name, String description, String type) {
    return Counter.builder(name).description(description).tag("type", type).tag("queue", queue).register(registry);
  }

  /** A handler whose runs are counted; its type, time limit and retries unchanged. */
  private final class Observed implements JobHandler {
    private final JobHandler handler;

    Observed(JobHandler handler) {
      this.handler = handler;
    }

    @Override
    public String type() {
      return handler.type();
    }

    @Override
    public JobResult handle(JobContext context) throws Exception {
      Duration late = Duration.between(context.dueAt(), Instant.now());
      Timer.builder("delayq.jobs.lateness").description("How long after its due time a job started")
          .tag("type", context.type()).tag("queue", queue).register(registry)
          .record(late.isNegative() ? Duration.ZERO : late);
      counter("delayq.jobs.run", "Handler runs in this app", context.type()).increment();
      try {
        JobResult result = handler.handle(context);
        if (result == null) {
          failed(context);
        }
        return result;
      } catch (Exception | Error e) {
        failed(context);
        throw e;
      }
    }

    private void failed(JobContext context) {
      counter("delayq.jobs.failed", "Handler runs in this app that threw or ran out of time", context.type()).increment();
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
}
