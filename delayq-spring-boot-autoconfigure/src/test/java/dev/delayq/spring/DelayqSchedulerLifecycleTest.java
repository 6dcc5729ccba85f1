package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQueue;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redis.Keys;
import dev.delayq.redisserver.RedisServer;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.RedisClient;

/**
 * {@code delayq.scheduler.enabled=true}: an app with nothing but Redis (no supervisor, no
 * scheduler process) closes an order posted with a real delay, and its shutdown gives the
 * lease back.
 */
class DelayqSchedulerLifecycleTest {
  private static final RedisServer SERVER = RedisServer.start();
  private static final RedisClient REDIS = RedisClient.create(SERVER.url());

  private final String queue = "spring-" + UUID.randomUUID().toString().substring(0, 8);
  private final Keys keys = new Keys("delayq", queue);
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
      .withUserConfiguration(App.class)
      .withPropertyValues("delayq.redis.url=" + SERVER.url(), "delayq.queue.name=" + queue,
          "delayq.worker.threads=2", "delayq.worker.poll-timeout=100ms", "delayq.worker.enabled=true");

  @AfterAll
  static void stopServer() {
    REDIS.close();
    SERVER.close();
  }

  /** Closes orders: counts how often each ran, and when it first did. */
  static final class OrderClose implements JobHandler {
    final Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();
    final Map<String, Long> firstRanAtMs = new ConcurrentHashMap<>();

    @Override
    public String type() {
      return "order_close";
    }

    @Override
    public JobResult handle(JobContext job) {
      firstRanAtMs.putIfAbsent(job.id(), System.currentTimeMillis());
      ran.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
      return JobResult.done();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    OrderClose orderClose() {
      return new OrderClose();
    }
  }

  @Test
  void withTheSchedulerEnabledAnOrderPostedWithATwoSecondDelayClosesInTheAppAlone() {
    String[] holder = new String[1];
    runner.withPropertyValues("delayq.scheduler.enabled=true").run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(DelayqSchedulerLifecycle.class);
      OrderClose handler = context.getBean(OrderClose.class);
      long postedMs = System.currentTimeMillis();
      String id = context.getBean(DelayQueue.class).delay("order_close", Map.of("order", 1001), Duration.ofSeconds(2))
          .id();

      await().atMost(Duration.ofSeconds(15)).until(() -> handler.ran.containsKey(id));

      assertThat(handler.ran.get(id).get()).isEqualTo(1);
      assertThat(handler.firstRanAtMs.get(id) - postedMs).isBetween(1_900L, 5_000L);
      holder[0] = context.getBean(DelayqSchedulerLifecycle.class).scheduler().owner();
      assertThat(REDIS.get(keys.leader())).isEqualTo(holder[0]);
    });
    // the context is closed: its scheduler gave the lease back at once, not after scheduler.leaseTtl
    assertThat(REDIS.get(keys.leader())).as("lease after shutdown").isNull();
  }

  @Test
  void withoutTheSchedulerEnabledADelayedJobStaysDelayed() {
    runner.run(context -> {
      assertThat(context).doesNotHaveBean(DelayqSchedulerLifecycle.class);
      OrderClose handler = context.getBean(OrderClose.class);
      context.getBean(DelayQueue.class).delay("order_close", Map.of("order", 1002), Duration.ofMillis(200));
      await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> true);
      assertThat(handler.ran).isEmpty();
    });
  }

  @Test
  void schedulerPropertiesSetTheSchedulerKeys() {
    runner.withPropertyValues("delayq.scheduler.lease-ttl=4s", "delayq.scheduler.standby-grace=50ms",
        "delayq.scheduler.recover-interval=500ms", "delayq.scheduler.batch-size=200").run(context -> {
          var config = context.getBean(dev.delayq.config.DelayqConfig.class).scheduler();
          assertThat(config.leaseTtl()).isEqualTo(Duration.ofSeconds(4));
          assertThat(config.standbyGrace()).isEqualTo(Duration.ofMillis(50));
          assertThat(config.recoverInterval()).isEqualTo(Duration.ofMillis(500));
          assertThat(config.batchSize()).isEqualTo(200);
        });
  }
}
