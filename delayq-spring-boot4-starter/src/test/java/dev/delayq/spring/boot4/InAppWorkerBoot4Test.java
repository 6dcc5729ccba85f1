package dev.delayq.spring.boot4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQueue;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.spring.DelayqAutoConfiguration;
import dev.delayq.redisserver.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The shared auto-configuration, compiled against Boot 3.5, running the in-app worker on Boot 4.0. */
class InAppWorkerBoot4Test {
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
      ran.add(job.payload().path("order").asText());
      return JobResult.done();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    Recording recording() {
      return new Recording();
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Test
  void jobHandlerBeansRunInTheAppAndAreMeteredOnBoot4() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
        .withUserConfiguration(App.class)
        .withPropertyValues("delayq.redis.url=" + SERVER.url(),
            "delayq.queue.name=boot4-" + UUID.randomUUID().toString().substring(0, 8),
            "delayq.worker.enabled=true", "delayq.worker.threads=2", "delayq.worker.poll-timeout=100ms")
        .run(context -> {
          assertThat(context).hasNotFailed();
          context.getBean(DelayQueue.class).delay("order_close", Map.of("order", "42"), Duration.ZERO);
          Recording handler = context.getBean(Recording.class);
          await().atMost(10, TimeUnit.SECONDS).until(() -> handler.ran.size() == 1);
          assertThat(handler.ran).containsExactly("42");
          assertThat(context.getBean(MeterRegistry.class).get("delayq.jobs.run").counter().count()).isEqualTo(1);
        });
  }

  @Test
  void withTheSchedulerEnabledADelayedJobRunsInTheAppAloneOnBoot4() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
        .withUserConfiguration(App.class)
        .withPropertyValues("delayq.redis.url=" + SERVER.url(),
            "delayq.queue.name=boot4-" + UUID.randomUUID().toString().substring(0, 8),
            "delayq.worker.enabled=true", "delayq.scheduler.enabled=true", "delayq.worker.threads=2",
            "delayq.worker.poll-timeout=100ms")
        .run(context -> {
          assertThat(context).hasNotFailed();
          long postedNanos = System.nanoTime();
          context.getBean(DelayQueue.class).delay("order_close", Map.of("order", "43"), Duration.ofSeconds(1));
          Recording handler = context.getBean(Recording.class);
          await().atMost(10, TimeUnit.SECONDS).until(() -> handler.ran.size() == 1);
          assertThat(handler.ran).containsExactly("43");
          assertThat(Duration.ofNanos(System.nanoTime() - postedNanos)).isGreaterThanOrEqualTo(Duration.ofMillis(950));
        });
  }
}
