package dev.delayq.spring.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQueue;
import dev.delayq.redisserver.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter on Spring Boot 4: found through its imports files, and its health indicator on a real Redis. */
class DelayqHealthIndicatorTest {
  private static final RedisServer SERVER = RedisServer.start();

  private final String queue = "boot4-" + UUID.randomUUID().toString().substring(0, 8);
  /** The auto-configurations as an app finds them: the imports files of the starter's jars. */
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(delayqAutoConfigurations()))
      .withPropertyValues("delayq.redis.url=" + SERVER.url(), "delayq.queue.name=" + queue);

  @AfterAll
  static void stopServer() {
    SERVER.close();
  }

  private static Class<?>[] delayqAutoConfigurations() {
    List<String> names = ImportCandidates.load(AutoConfiguration.class, null).getCandidates().stream()
        .filter(n -> n.startsWith("dev.delayq.")).toList();
    assertThat(names).containsExactlyInAnyOrder("dev.delayq.spring.DelayqAutoConfiguration",
        "dev.delayq.spring.DelayqAfterCommitAutoConfiguration",
        "dev.delayq.spring.boot4.DelayqHealthAutoConfiguration");
    return names.stream().map(n -> {
      try {
        return Class.forName(n);
      } catch (ClassNotFoundException e) {
        throw new AssertionError(e);
      }
    }).toArray(Class<?>[]::new);
  }

  @Test
  void healthIsUpWithTheBacklogAndHowLongTheOldestOverdueJobHasWaited() {
    // an hour overdue, under a limit of two: UP (past the limit it is DOWN, see the autoconfigure tests)
    runner.withPropertyValues("delayq.health.max-overdue=2h").run(context -> {
      DelayQueue producer = context.getBean(DelayQueue.class);
      producer.schedule("order_close", Map.of("order", 1), Instant.now().minus(Duration.ofHours(1)));
      producer.delay("order_close", Map.of("order", 2), Duration.ofHours(1));

      Health health = context.getBean("delayqHealthIndicator", HealthIndicator.class).health();

      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).containsEntry("backlog", 1L).containsEntry("ready", 1L)
          .containsEntry("delayed", 1L).containsEntry("queue", queue);
      assertThat((Long) health.getDetails().get("oldestOverdueMs"))
          .isBetween(Duration.ofMinutes(59).toMillis(), Duration.ofMinutes(61).toMillis());
    });
  }

  @Test
  void healthIsDownWhenRedisCannotBeRead() {
    RedisServer own = RedisServer.start();
    runner.withPropertyValues("delayq.redis.url=" + own.url(), "delayq.redis.socket-timeout=1500ms",
        "delayq.redis.connect-timeout=500ms").run(context -> {
          HealthIndicator indicator = context.getBean("delayqHealthIndicator", HealthIndicator.class);
          assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
          own.close();

          assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
        });
  }
}
