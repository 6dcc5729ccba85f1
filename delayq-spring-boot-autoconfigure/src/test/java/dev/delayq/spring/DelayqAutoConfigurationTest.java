package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQueue;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redis.DelayedReads;
import dev.delayq.redis.Keys;
import dev.delayq.redisserver.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.RedisClient;

/** The shared auto-configuration under Spring Boot 3.5, against a real redis-server. */
class DelayqAutoConfigurationTest {
  private static final RedisServer SERVER = RedisServer.start();
  private static final RedisClient REDIS = RedisClient.create(SERVER.url());

  private final String queue = "spring-" + UUID.randomUUID().toString().substring(0, 8);
  private final Keys keys = new Keys("delayq", queue);
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
      .withPropertyValues("delayq.redis.url=" + SERVER.url(), "delayq.queue.name=" + queue,
          "delayq.worker.threads=2", "delayq.worker.poll-timeout=100ms");

  @AfterAll
  static void stopServer() {
    REDIS.close();
    SERVER.close();
  }

  /** Records what it ran; sleeps when the payload asks, fails when it says so. */
  static final class OrderClose implements JobHandler {
    final List<String> ran = new CopyOnWriteArrayList<>();
    final CountDownLatch started = new CountDownLatch(1);

    @Override
    public String type() {
      return "order_close";
    }

    @Override
    public JobResult handle(JobContext job) throws Exception {
      started.countDown();
      Thread.sleep(job.payload().path("sleepMs").asLong(0));
      if (job.payload().path("fail").asBoolean()) {
        throw new IllegalStateException("payment service down");
      }
      ran.add(job.payload().path("order").asText());
      return JobResult.done();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class AppWithHandler {
    @Bean
    OrderClose orderClose() {
      return new OrderClose();
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Test
  void theDelayQueueBeanEnqueuesOnTheConfiguredQueue() {
    runner.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(DelayQueue.class);
      context.getBean(DelayQueue.class).delay("order_close", Map.of("order", "1001"), Duration.ofMinutes(30));
      assertThat(new DelayedReads(REDIS).count(keys, "-inf", "+inf")).isEqualTo(1);
      assertThat(context).doesNotHaveBean(DelayqWorkerLifecycle.class);
    });
  }

  @Test
  void propertiesSetTheKeysOfDelayqYmlAndTheRestKeepItsDefaults() {
    runner.withPropertyValues("delayq.queue.key-prefix=shop", "delayq.retry.base-delay=250ms",
        "delayq.worker.drain-timeout=1m", "delayq.redis.require-noeviction=false").run(context -> {
          DelayqConfig config = context.getBean(DelayqConfig.class);
          assertThat(config.queue().keyPrefix()).isEqualTo("shop");
          assertThat(config.queue().name()).isEqualTo(queue);
          assertThat(config.retry().baseDelay()).isEqualTo(Duration.ofMillis(250));
          assertThat(config.worker().drainTimeout()).isEqualTo(Duration.ofMinutes(1));
          assertThat(config.worker().threads()).isEqualTo(2);
          assertThat(config.redis().requireNoeviction()).isFalse();
          assertThat(config.retry().maxAttempts()).isEqualTo(5);
          assertThat(config.worker().heartbeatTtl()).isEqualTo(Duration.ofSeconds(30));
        });
  }

  @Test
  void workerQueuesAndStrictAreProperties() {
    runner.withPropertyValues("delayq.worker.queues=" + queue + "-critical:6," + queue + ":1",
        "delayq.worker.strict=true", "delayq.redis.require-noeviction=false").run(context -> {
          DelayqConfig config = context.getBean(DelayqConfig.class);
          assertThat(config.queueNames()).containsExactly(queue + "-critical", queue);
          assertThat(config.worker().queues().get(queue + "-critical")).isEqualTo(6);
          assertThat(config.worker().strict()).isTrue();
        });
  }

  @Test
  void onAShardedQueueTheHealthCheckCountsEveryShardsBacklogAndFindsTheOldestJobInAnyOfThem() {
    runner.withPropertyValues("delayq.queue.shards=3").run(context -> {
      assertThat(context.getBean(DelayqConfig.class).queue().shards()).isEqualTo(3);
      DelayQueue producer = context.getBean(DelayQueue.class);
      Keys sharded = Keys.sharded("delayq", queue, 3);
      // the oldest overdue job in shard 2, a younger one in shard 0: no scheduler or worker runs
      String oldest = idInShard(sharded, 2);
      producer.schedule("order_close", Map.of(), java.time.Instant.now().minus(Duration.ofHours(2)),
          dev.delayq.JobOptions.withId(oldest));
      producer.schedule("order_close", Map.of(), java.time.Instant.now().minus(Duration.ofMinutes(1)),
          dev.delayq.JobOptions.withId(idInShard(sharded, 0)));
      // and 30 jobs that fall due in delayed, with no scheduler to forward them: every shard gets some
      for (int i = 0; i < 30; i++) {
        producer.delay("order_close", Map.of("n", i), Duration.ofMillis(100));
      }
      Thread.sleep(300);
      for (Keys shard : sharded.allShards()) {
        assertThat(new DelayedReads(REDIS).count(shard, "-inf", "+inf")).as("delayed in shard " + shard.shard())
            .isPositive();
      }

      DelayqHealthCheck.Reading reading = context.getBean(DelayqHealthCheck.class).read();

      assertThat(reading.details()).containsEntry("backlog", 32L).containsEntry("ready", 2L)
          .containsEntry("delayed", 30L);
      assertThat((Long) reading.details().get("oldestOverdueMs"))
          .isBetween(Duration.ofMinutes(119).toMillis(), Duration.ofMinutes(121).toMillis());
    });
  }

  @Test
  void aDueJobWaitingPastMaxOverdueMakesTheHealthDownNamingItsAgeAndQueue() {
    runner.withPropertyValues("delayq.health.max-overdue=1s").run(context -> {
      DelayqHealthCheck health = context.getBean(DelayqHealthCheck.class);
      // due in 100 ms on a queue that no scheduler or worker serves
      context.getBean(DelayQueue.class).delay("order_close", Map.of(), Duration.ofMillis(100));
      assertThat(health.read().up()).as("due, but not yet a second late").isTrue();

      await().atMost(Duration.ofSeconds(10)).until(() -> !health.read().up());

      DelayqHealthCheck.Reading reading = health.read();
      assertThat((Long) reading.details().get("oldestOverdueMs")).isGreaterThan(1000L);
      assertThat(reading.details()).containsEntry("maxOverdueMs", 1000L);
      assertThat((String) reading.details().get("overdue"))
          .startsWith("the oldest due job of queue " + queue + " has waited ")
          .contains("past its due time, more than delayq.health.max-overdue (1.0 s)");
    });
  }

  @Test
  void aDueJobWaitingLessThanMaxOverdueLeavesTheHealthUp() {
    runner.run(context -> { // max-overdue as shipped: 60 s
      DelayqHealthCheck health = context.getBean(DelayqHealthCheck.class);
      context.getBean(DelayQueue.class).delay("order_close", Map.of(), Duration.ofMillis(100));
      await().atMost(Duration.ofSeconds(10))
          .until(() -> (Long) health.read().details().get("oldestOverdueMs") > 1000L);

      DelayqHealthCheck.Reading reading = health.read();
      assertThat(reading.up()).as(reading.details().toString()).isTrue();
      assertThat(reading.details()).containsEntry("maxOverdueMs", 60_000L).doesNotContainKey("overdue");
    });
  }

  @Test
  void aRedisThatWantsAPasswordStopsStartUpSayingWhereThePasswordGoes() {
    try (RedisServer locked = RedisServer.start("--requirepass", "spring-secret")) {
      runner.withPropertyValues("delayq.redis.url=redis://127.0.0.1:" + locked.port()).run(context ->
          assertThat(context).hasFailed().getFailure().rootCause()
              .isInstanceOf(dev.delayq.redis.RedisAuthException.class)
              .hasMessageContaining("NOAUTH").hasMessageContaining("delayq.redis.url")
              .hasMessageContaining("run/redis.password").hasMessageNotContaining("spring-secret"));
    }
  }

  @Test
  void aHealthReadRefusedForThePasswordSaysWhereThePasswordGoes() {
    try (RedisServer locked = RedisServer.start("--requirepass", "health-secret")) {
      DelayqConfig config = new dev.delayq.config.ConfigLoader().load(null, Map.of(
          "DELAYQ_REDIS_URL", "redis://127.0.0.1:" + locked.port(), "DELAYQ_QUEUE", queue));
      try (dev.delayq.redis.RedisConnection redis = dev.delayq.redis.RedisConnector.connect(config, "health-test", 2)) {
        DelayqHealthCheck health = new DelayqHealthCheck(config, redis, () -> null, Duration.ofSeconds(60));

        // the indicator turns what read() throws into DOWN with its message
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(dev.delayq.redis.RedisAuthException.class, health::read))
            .hasMessageContaining("NOAUTH").hasMessageContaining("delayq.redis.url")
            .hasMessageContaining("run/redis.password").hasMessageNotContaining("health-secret");
      }
    }
  }

  @Test
  void theClusterSeedsAreAProperty() {
    DelayqProperties properties = new DelayqProperties();
    properties.getRedis().setCluster("10.0.0.1:6379,10.0.0.2:6379");
    properties.getQueue().setShards(3);
    DelayqConfig config = new dev.delayq.config.ConfigLoader().load(null, DelayqEnvironment.of(properties));
    assertThat(config.redis().clusterNodes()).hasSize(2);
    assertThat(config.queue().shards()).isEqualTo(3);
  }

  private static String idInShard(Keys sharded, int shard) {
    for (int i = 0; ; i++) {
      if (sharded.shardIndexOf("order-" + i) == shard) {
        return "order-" + i;
      }
    }
  }

  @Test
  void aBadValueStopsStartUpNamingTheKey() {
    runner.withPropertyValues("delayq.worker.threads=0").run(context ->
        assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("threads"));
  }

  @Test
  void withoutARedisUrlStartUpIsRefusedSayingSo() {
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("delayq.redis.url is not set"));
  }

  @Test
  void withTheWorkerEnabledJobHandlerBeansRunInTheAppAndAreMetered() {
    runner.withUserConfiguration(AppWithHandler.class).withPropertyValues("delayq.worker.enabled=true",
        "delayq.retry.max-attempts=1").run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(DelayqWorkerLifecycle.class);
          DelayQueue producer = context.getBean(DelayQueue.class);
          producer.delay("order_close", Map.of("order", "1001"), Duration.ZERO);
          producer.delay("order_close", Map.of("fail", true), Duration.ZERO);
          OrderClose handler = context.getBean(OrderClose.class);
          await().atMost(10, TimeUnit.SECONDS).until(() -> REDIS.zcard(keys.dead()) == 1 && handler.ran.size() == 1);
          assertThat(handler.ran).containsExactly("1001");

          MeterRegistry meters = context.getBean(MeterRegistry.class);
          assertThat(meters.get("delayq.jobs.enqueued").tag("type", "order_close").counter().count()).isEqualTo(2);
          assertThat(meters.get("delayq.jobs.run").tag("type", "order_close").counter().count()).isEqualTo(2);
          assertThat(meters.get("delayq.jobs.failed").tag("type", "order_close").counter().count()).isEqualTo(1);
          assertThat(meters.get("delayq.jobs.lateness").tag("queue", queue).timer().count()).isEqualTo(2);
        });
  }

  @Test
  void closingTheContextDrainsTheWorkerSoTheRunningJobFinishesAndIsAcknowledged() {
    runner.withUserConfiguration(AppWithHandler.class).withPropertyValues("delayq.worker.enabled=true").run(context -> {
      OrderClose handler = context.getBean(OrderClose.class);
      context.getBean(DelayQueue.class).delay("order_close", Map.of("order", "7", "sleepMs", 800), Duration.ZERO);
      assertThat(handler.started.await(10, TimeUnit.SECONDS)).isTrue();

      context.getSourceApplicationContext().close();  // while the job runs

      assertThat(handler.ran).containsExactly("7");
      assertThat(REDIS.hlen(keys.jobs())).as("acknowledged before the worker let go").isZero();
      assertThat(REDIS.llen(keys.ready())).isZero();
    });
  }
}
