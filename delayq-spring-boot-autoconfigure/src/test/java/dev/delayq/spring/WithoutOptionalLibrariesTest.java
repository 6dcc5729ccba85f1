package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQueue;
import dev.delayq.EnqueueGate;
import dev.delayq.EnqueueResult;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redisserver.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * An app without Micrometer (no actuator) still gets its queue and in-app worker, without meters;
 * one without spring-tx gets a queue whose enqueues go at once.
 */
class WithoutOptionalLibrariesTest {
  private static final RedisServer SERVER = RedisServer.start();

  @AfterAll
  static void stopServer() {
    SERVER.close();
  }

  static final class Recording implements JobHandler {
    final List<String> ran = new CopyOnWriteArrayList<>();

    @Override
    public String type() {
      return "order_close";
    }

    @Override
    public JobResult handle(JobContext job) {
      ran.add(job.id());
      return JobResult.done();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    Recording recording() {
      return new Recording();
    }
  }

  @Test
  void withoutMicrometerTheQueueAndTheWorkerRunAndNoObserverIsMade() {
    new ApplicationContextRunner()
        .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
        .withUserConfiguration(App.class)
        .withPropertyValues("delayq.redis.url=" + SERVER.url(),
            "delayq.queue.name=plain-" + UUID.randomUUID().toString().substring(0, 8),
            "delayq.worker.enabled=true", "delayq.worker.poll-timeout=100ms")
        .run(context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(JobObserver.class);
          String id = context.getBean(DelayQueue.class).delay("order_close", Map.of(), Duration.ZERO).id();
          Recording handler = context.getBean(Recording.class);
          await().atMost(10, TimeUnit.SECONDS).until(() -> handler.ran.contains(id));
        });
  }

  @Test
  void withoutSpringTxThereIsNoGateAndEnqueuesGoAtOnce() {
    new ApplicationContextRunner()
        .withClassLoader(new FilteredClassLoader("org.springframework.transaction"))
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, DelayqAfterCommitAutoConfiguration.class))
        .withPropertyValues("delayq.redis.url=" + SERVER.url(),
            "delayq.queue.name=plain-" + UUID.randomUUID().toString().substring(0, 8))
        .run(context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(EnqueueGate.class);
          EnqueueResult r = context.getBean(DelayQueue.class).delay("order_close", Map.of(), Duration.ofMinutes(1));
          assertThat(r.status()).isEqualTo(EnqueueResult.Status.ACCEPTED);
        });
  }
}
