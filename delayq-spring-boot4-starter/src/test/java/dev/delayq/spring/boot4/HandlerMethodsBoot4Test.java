package dev.delayq.spring.boot4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQueue;
import dev.delayq.JobOptions;
import dev.delayq.job.JobContext;
import dev.delayq.spring.DelayqAutoConfiguration;
import dev.delayq.spring.DelayqHandler;
import dev.delayq.redisserver.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** @DelayqHandler methods, found and bound by the auto-configuration compiled against Boot 3.5, on Boot 4.0. */
class HandlerMethodsBoot4Test {
  private static final RedisServer SERVER = RedisServer.start();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
      .withPropertyValues("delayq.redis.url=" + SERVER.url(),
          "delayq.queue.name=boot4-" + UUID.randomUUID().toString().substring(0, 8),
          "delayq.worker.enabled=true", "delayq.worker.threads=2", "delayq.worker.poll-timeout=100ms");

  @AfterAll
  static void stopServer() {
    SERVER.close();
  }

  record Item(String sku, int quantity) {}

  static class StockJobs {
    final List<Object> seen = new CopyOnWriteArrayList<>();

    @DelayqHandler("stock_release")
    void release(JobContext job, List<Item> items) {
      seen.add(job.id());
      seen.add(items);
    }
  }

  static class TwoContexts {
    @DelayqHandler("stock_release")
    void release(JobContext job, JobContext again) {}
  }

  @Test
  void aHandlerMethodGetsItsGenericPayloadAndContextOnBoot4() {
    runner.withBean(StockJobs.class, StockJobs::new).run(context -> {
      assertThat(context).hasNotFailed();
      context.getBean(DelayQueue.class).delay("stock_release", List.of(new Item("A-1", 2)), Duration.ZERO,
          JobOptions.withId("release-1"));
      StockJobs jobs = context.getBean(StockJobs.class);
      await().atMost(Duration.ofSeconds(10)).until(() -> jobs.seen.size() == 2);
      assertThat(jobs.seen).containsExactly("release-1", List.of(new Item("A-1", 2)));
    });
  }

  @Test
  void aBadSignatureStopsTheStartOnBoot4() {
    runner.withBean(TwoContexts.class, TwoContexts::new).run(context ->
        assertThat(context).hasFailed().getFailure().hasMessage("@DelayqHandler " + TwoContexts.class.getName()
            + "#release (job type 'stock_release') takes two JobContext parameters; it may take one"));
  }
}
