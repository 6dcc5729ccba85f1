package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.redisserver.RedisServer;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A @DelayqHandler method that cannot be a handler stops the context's start, saying which and why. */
class DelayqHandlerRefusalsTest {
  private static final RedisServer SERVER = RedisServer.start();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
      .withPropertyValues("delayq.redis.url=" + SERVER.url(),
          "delayq.queue.name=refusals-" + UUID.randomUUID().toString().substring(0, 8),
          "delayq.worker.enabled=true", "delayq.worker.threads=1", "delayq.worker.poll-timeout=100ms");

  @AfterAll
  static void stopServer() {
    SERVER.close();
  }

  record OrderClose(long orderId) {}

  static class TooManyParameters {
    @DelayqHandler("order_close")
    void close(OrderClose order, JobContext job, String extra) {}
  }

  static class TwoContexts {
    @DelayqHandler("order_close")
    void close(JobContext job, JobContext again) {}
  }

  static class TwoPayloads {
    @DelayqHandler("order_close")
    void close(OrderClose order, String note) {}
  }

  static class WrongReturnType {
    @DelayqHandler("order_close")
    String close(OrderClose order) {
      return "closed";
    }
  }

  static class NoType {
    @DelayqHandler("")
    void close(OrderClose order) {}
  }

  static class MalformedType {
    @DelayqHandler("Order Close")
    void close(OrderClose order) {}
  }

  /** Its bean is a class proxy (as for @Transactional), which cannot reach a private method. */
  static class PrivateOnAProxy {
    @DelayqHandler("order_close")
    private void close(OrderClose order) {}
  }

  static class Closer {
    @DelayqHandler("order_close")
    void close(OrderClose order) {}
  }

  static class OtherCloser {
    @DelayqHandler("order_close")
    JobResult closeAgain(JobContext job) {
      return JobResult.done();
    }
  }

  static final class OrderCloseHandler implements JobHandler {
    @Override
    public String type() {
      return "order_close";
    }

    @Override
    public JobResult handle(JobContext job) {
      return JobResult.done();
    }
  }

  @Test
  void aMethodWithThreeParametersIsRefused() {
    assertRefused(new TooManyParameters(), "@DelayqHandler " + TooManyParameters.class.getName()
        + "#close (job type 'order_close') takes 3 parameters; a handler method takes the payload, a JobContext, "
        + "both (in either order) or neither");
  }

  @Test
  void aMethodWithTwoJobContextsIsRefused() {
    assertRefused(new TwoContexts(), "@DelayqHandler " + TwoContexts.class.getName()
        + "#close (job type 'order_close') takes two JobContext parameters; it may take one");
  }

  @Test
  void aMethodWithTwoPayloadParametersIsRefused() {
    assertRefused(new TwoPayloads(), "@DelayqHandler " + TwoPayloads.class.getName()
        + "#close (job type 'order_close') takes two payload parameters (OrderClose and String)");
  }

  @Test
  void aMethodReturningNeitherVoidNorJobResultIsRefused() {
    assertRefused(new WrongReturnType(), "@DelayqHandler " + WrongReturnType.class.getName()
        + "#close (job type 'order_close') returns String; a handler method returns void (the job is done) or a JobResult");
  }

  @Test
  void anEmptyTypeIsRefused() {
    assertRefused(new NoType(), "@DelayqHandler " + NoType.class.getName()
        + "#close names no job type: give it one, as in @DelayqHandler(\"order_close\")");
  }

  @Test
  void aTypeOutsideTheTypeAlphabetIsRefused() {
    assertRefused(new MalformedType(), "@DelayqHandler " + MalformedType.class.getName()
        + "#close names job type 'Order Close', which does not match [a-z0-9_.:-]{1,64}");
  }

  @Test
  void aPrivateMethodOfAProxiedBeanIsRefused() {
    ProxyFactory proxy = new ProxyFactory(new PrivateOnAProxy());
    proxy.setProxyTargetClass(true);
    assertRefused(proxy.getProxy(), "@DelayqHandler " + PrivateOnAProxy.class.getName()
        + "#close (job type 'order_close') cannot be called on its bean, a proxy: ");
  }

  @Test
  void twoMethodsForOneTypeAreRefusedNamingBoth() {
    runner.withBean("closer", Closer.class, Closer::new).withBean("otherCloser", OtherCloser.class, OtherCloser::new)
        .run(context -> assertThat(context).hasFailed().getFailure()
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("job type 'order_close' has two handlers: @DelayqHandler " + Closer.class.getName()
                + "#close and @DelayqHandler " + OtherCloser.class.getName() + "#closeAgain; give each type one handler"));
  }

  @Test
  void aMethodAndAJobHandlerBeanForOneTypeAreRefusedNamingBoth() {
    runner.withUserConfiguration(HandlerBeanAndMethod.class)
        .run(context -> assertThat(context).hasFailed().getFailure()
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("job type 'order_close' has two handlers: the JobHandler bean 'orderCloseHandler' ("
                + OrderCloseHandler.class.getName() + ") and @DelayqHandler " + Closer.class.getName()
                + "#close; give each type one handler"));
  }

  @Test
  void theChecksRunWithoutTheInAppWorkerToo() {
    runner.withPropertyValues("delayq.worker.enabled=false").withBean(TwoContexts.class, TwoContexts::new)
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasMessageContaining("takes two JobContext parameters"));
  }

  @Configuration(proxyBeanMethods = false)
  static class HandlerBeanAndMethod {
    @Bean
    OrderCloseHandler orderCloseHandler() {
      return new OrderCloseHandler();
    }

    @Bean
    Closer closer() {
      return new Closer();
    }
  }

  private void assertRefused(Object bean, String message) {
    runner.withBean("handlers", Object.class, () -> bean).run(context ->
        assertThat(context).hasFailed().getFailure()
            .isInstanceOf(IllegalStateException.class).hasMessageStartingWith(message));
  }
}
