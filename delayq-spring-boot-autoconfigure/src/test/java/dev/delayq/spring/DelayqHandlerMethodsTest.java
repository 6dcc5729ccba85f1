package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.delayq.ChangeResult;
import dev.delayq.DelayQueue;
import dev.delayq.JobOptions;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.Keys;
import dev.delayq.redisserver.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.RedisClient;

/** @DelayqHandler methods run by the in-app worker, against a real redis-server. */
class DelayqHandlerMethodsTest {
  private static final RedisServer SERVER = RedisServer.start();
  private static final RedisClient REDIS = RedisClient.create(SERVER.url());

  private final String queue = "handlers-" + UUID.randomUUID().toString().substring(0, 8);
  private final Keys keys = new Keys("delayq", queue);
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
      .withPropertyValues("delayq.redis.url=" + SERVER.url(), "delayq.queue.name=" + queue,
          "delayq.worker.enabled=true", "delayq.worker.threads=2", "delayq.worker.poll-timeout=100ms",
          "delayq.retry.max-attempts=2", "delayq.retry.base-delay=10ms");

  @AfterAll
  static void stopServer() {
    REDIS.close();
    SERVER.close();
  }

  record OrderClose(long orderId, String reason) {}

  record Item(String sku, int quantity) {}

  /** Handler methods of every shape; each records what it was given. */
  static class OrderJobs {
    final List<Object> seen = new CopyOnWriteArrayList<>();
    final AtomicInteger paymentChecks = new AtomicInteger();

    @DelayqHandler("order_close")
    void close(OrderClose order) {
      seen.add(order);
    }

    @DelayqHandler("stock_release")
    public JobResult release(List<Item> items, JobContext job) {
      seen.add(items);
      seen.add(job.id() + " attempt " + job.attempt());
      return JobResult.done();
    }

    @DelayqHandler("order_note")
    void note(JobContext job, Map<String, Object> note) {
      seen.add(job.type() + " " + job.id() + " attempt " + job.attempt());
      seen.add(note);
    }

    @DelayqHandler("order_audit")
    void audit(JsonNode tree) {
      seen.add(tree.path("lines").get(1).path("sku").asText());
    }

    @DelayqHandler("order_recheck")
    JobResult recheck(OrderClose order) {
      return null;
    }

    @DelayqHandler("payment_check")
    void check(OrderClose order) {
      paymentChecks.incrementAndGet();
      throw new IllegalStateException("payment service down for order " + order.orderId());
    }
  }

  /** A JobHandler class, the other way to write a handler. */
  static final class StockCount implements JobHandler {
    final List<String> ran = new CopyOnWriteArrayList<>();

    @Override
    public String type() {
      return "stock_count";
    }

    @Override
    public JobResult handle(JobContext job) {
      ran.add(job.payload().path("sku").asText());
      return JobResult.done();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    OrderJobs orderJobs() {
      return new OrderJobs();
    }

    @Bean
    StockCount stockCount() {
      return new StockCount();
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class SnakeCaseMapper {
    @Bean
    ObjectMapper objectMapper() {
      return new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
    }
  }

  @Test
  void aRecordPayloadIsBoundToTheMethodsParameter() {
    runner.withUserConfiguration(App.class).run(context -> {
      assertThat(context).hasNotFailed();
      context.getBean(DelayQueue.class).delay("order_close", new OrderClose(1001, "unpaid"), Duration.ZERO);

      OrderJobs jobs = context.getBean(OrderJobs.class);
      await().atMost(Duration.ofSeconds(10)).until(() -> !jobs.seen.isEmpty());
      assertThat(jobs.seen).containsExactly(new OrderClose(1001, "unpaid"));
      assertThat(REDIS.hlen(keys.jobs())).as("acknowledged").isZero();
    });
  }

  @Test
  void aGenericPayloadBindsEachElementToTheTypeArgumentAndTheContextGivesIdAndAttempt() {
    runner.withUserConfiguration(App.class).run(context -> {
      context.getBean(DelayQueue.class).delay("stock_release", List.of(new Item("A-1", 2), new Item("B-7", 1)),
          Duration.ZERO, JobOptions.withId("release-1"));

      OrderJobs jobs = context.getBean(OrderJobs.class);
      await().atMost(Duration.ofSeconds(10)).until(() -> jobs.seen.size() == 2);
      // a list of maps would not equal a list of records
      assertThat(jobs.seen).containsExactly(List.of(new Item("A-1", 2), new Item("B-7", 1)), "release-1 attempt 1");
    });
  }

  @Test
  void theContextMayComeFirstAndMapsAndJsonTreesBindToo() {
    runner.withUserConfiguration(App.class).run(context -> {
      DelayQueue producer = context.getBean(DelayQueue.class);
      producer.delay("order_note", Map.of("text", "call back", "lines", List.of(1, 2)), Duration.ZERO,
          JobOptions.withId("note-1"));
      OrderJobs jobs = context.getBean(OrderJobs.class);
      await().atMost(Duration.ofSeconds(10)).until(() -> jobs.seen.size() == 2);
      assertThat(jobs.seen).containsExactly("order_note note-1 attempt 1",
          Map.of("text", "call back", "lines", List.of(1, 2)));

      producer.delay("order_audit", Map.of("lines", List.of(Map.of("sku", "A-1"), Map.of("sku", "B-7"))), Duration.ZERO);
      await().atMost(Duration.ofSeconds(10)).until(() -> jobs.seen.size() == 3);
      assertThat(jobs.seen.get(2)).isEqualTo("B-7");
    });
  }

  @Test
  void jobHandlerBeansRunBesideTheHandlerMethodsAndBothAreMetered() {
    runner.withUserConfiguration(App.class).run(context -> {
      DelayQueue producer = context.getBean(DelayQueue.class);
      producer.delay("stock_count", Map.of("sku", "C-3"), Duration.ZERO);
      producer.delay("order_close", new OrderClose(7, "expired"), Duration.ZERO);

      StockCount counter = context.getBean(StockCount.class);
      OrderJobs jobs = context.getBean(OrderJobs.class);
      await().atMost(Duration.ofSeconds(10)).until(() -> counter.ran.size() == 1 && jobs.seen.size() == 1);
      assertThat(counter.ran).containsExactly("C-3");
      assertThat(jobs.seen).containsExactly(new OrderClose(7, "expired"));
      MeterRegistry meters = context.getBean(MeterRegistry.class);
      assertThat(meters.get("delayq.jobs.run").tag("type", "order_close").counter().count()).as("metered too").isEqualTo(1);
      assertThat(meters.get("delayq.jobs.run").tag("type", "stock_count").counter().count()).isEqualTo(1);
    });
  }

  @Test
  void theAppsObjectMapperBindsThePayloads() {
    runner.withUserConfiguration(App.class, SnakeCaseMapper.class).run(context -> {
      context.getBean(DelayQueue.class).delay("order_close", Map.of("order_id", 42, "reason", "unpaid"), Duration.ZERO);

      OrderJobs jobs = context.getBean(OrderJobs.class);
      await().atMost(Duration.ofSeconds(10)).until(() -> !jobs.seen.isEmpty());
      assertThat(jobs.seen).containsExactly(new OrderClose(42, "unpaid"));
    });
  }

  @Test
  void aMethodThatThrowsIsRetriedThenDeadWithItsExceptionAsTheLastError() {
    runner.withUserConfiguration(App.class).run(context -> {
      DelayQueue producer = context.getBean(DelayQueue.class);
      producer.delay("payment_check", new OrderClose(7, "check"), Duration.ZERO, JobOptions.withId("check-7"));
      OrderJobs jobs = context.getBean(OrderJobs.class);

      promoteTheRetry(producer, "check-7", () -> jobs.paymentChecks.get() == 1);
      await().atMost(Duration.ofSeconds(10)).until(() -> REDIS.zcard(keys.dead()) == 1);

      assertThat(jobs.paymentChecks).hasValue(2);
      assertThat(lastError("check-7"))
          .startsWith("attempt 2/2: java.lang.IllegalStateException: payment service down for order 7")
          .doesNotContain("InvocationTargetException");
    });
  }

  @Test
  void aPayloadThatDoesNotBindIsAFailedAttemptAndEndsDeadWithTheBindingError() {
    runner.withUserConfiguration(App.class).run(context -> {
      DelayQueue producer = context.getBean(DelayQueue.class);
      producer.delay("order_close", Map.of("orderId", "not-a-number"), Duration.ZERO, JobOptions.withId("bad-1"));

      promoteTheRetry(producer, "bad-1", () -> lastError("bad-1") != null);
      await().atMost(Duration.ofSeconds(10)).until(() -> REDIS.zcard(keys.dead()) == 1);

      assertThat(context.getBean(OrderJobs.class).seen).isEmpty();
      assertThat(lastError("bad-1"))
          .startsWith("attempt 2/2: java.lang.IllegalArgumentException: payload of job bad-1 does not bind to "
              + OrderClose.class.getName() + ", the parameter of @DelayqHandler " + OrderJobs.class.getName() + "#close: ")
          .contains("not-a-number");
    });
  }

  @Test
  void aMethodReturningNullInsteadOfAJobResultFailsTheAttemptNamingTheMethod() {
    runner.withUserConfiguration(App.class).withPropertyValues("delayq.retry.max-attempts=1").run(context -> {
      context.getBean(DelayQueue.class).delay("order_recheck", new OrderClose(3, "recheck"), Duration.ZERO,
          JobOptions.withId("recheck-3"));

      await().atMost(Duration.ofSeconds(10)).until(() -> REDIS.zcard(keys.dead()) == 1);
      assertThat(lastError("recheck-3")).startsWith("attempt 1/1: java.lang.IllegalStateException: @DelayqHandler "
          + OrderJobs.class.getName() + "#recheck returned null instead of a JobResult");
    });
  }

  /** Waits for the first attempt to fail, then promotes its retry: no scheduler runs here to forward it. */
  private static void promoteTheRetry(DelayQueue producer, String id, java.util.concurrent.Callable<Boolean> firstAttemptRan) {
    await().atMost(Duration.ofSeconds(10)).until(firstAttemptRan);
    await().atMost(Duration.ofSeconds(10)).until(() -> producer.promote(id).status() == ChangeResult.Status.READY);
  }

  private String lastError(String id) throws Exception {
    String raw = REDIS.hget(keys.jobs(), id);
    return raw == null ? null : JobRecord.parse(id, raw).lastError();
  }
}
