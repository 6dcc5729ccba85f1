package dev.delayq.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.DelayQueue;
import dev.delayq.EnqueueGate;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.stream.Stream;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * delayq in a Spring Boot app: the {@link DelayqConfig} from the {@code delayq.*} properties
 * (the keys and checks of conf/delayq.yml), one Redis connection pool, the {@link DelayQueue}
 * bean, with {@code delayq.worker.enabled=true} the in-app worker running every
 * {@link JobHandler} bean and {@link DelayqHandler} method, and with
 * {@code delayq.scheduler.enabled=true} the scheduler engine. Each bean backs off when the app
 * defines its own.
 */
@AutoConfiguration
@EnableConfigurationProperties(DelayqProperties.class)
public class DelayqAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public DelayqConfig delayqConfig(DelayqProperties properties) {
    return new ConfigLoader().load(null, DelayqEnvironment.of(properties));
  }

  /** Producers, the worker's consumers and the health check share it. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public RedisConnection delayqRedis(DelayqConfig config) {
    if (config.redis().embedded()) {
      throw new IllegalStateException("delayq.redis.url is not set: an app connects to a Redis of "
          + "its own (redis://host:port), or with delayq.redis.sentinels to a Sentinel group");
    }
    RedisConnection redis = RedisConnector.connect(config, "delayq-app", config.worker().threads() + 16);
    try {
      redis.checkServer(config.redis().requireNoeviction());
    } catch (RuntimeException e) {
      redis.close();
      throw e;
    }
    return redis;
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public DelayQueue delayQueue(DelayqConfig config, RedisConnection redis, ObjectProvider<JobObserver> observer,
      ObjectProvider<EnqueueGate> gate) {
    RedisBroker broker = new RedisBroker(redis, Keys.of(config))
        .withLimits(config);
    broker.prepare();
    return new DelayQueue(broker, config.queue().maxPayloadBytes(), config.retry().maxAttempts(),
        observer.getIfAvailable(() -> JobObserver.NONE), gate.getIfAvailable(() -> EnqueueGate.NOW));
  }

  @Bean
  @ConditionalOnMissingBean
  public DelayqHealthCheck delayqHealthCheck(DelayqConfig config, RedisConnection redis,
      ObjectProvider<DelayqWorkerLifecycle> worker, DelayqProperties properties) {
    return new DelayqHealthCheck(config, redis, () -> {
      DelayqWorkerLifecycle w = worker.getIfAvailable();
      return w == null || w.worker() == null ? null : w.worker().failure();
    }, properties.getHealth().getMaxOverdue());
  }

  /** The app's @DelayqHandler methods, checked at start, bound with its ObjectMapper if it has one. */
  @Bean
  DelayqHandlerMethods delayqHandlerMethods(ObjectProvider<ObjectMapper> mapper) {
    return new DelayqHandlerMethods(() -> mapper.getIfUnique(JobContext::payloadMapper));
  }

  /** The in-app worker: the app's JobHandler beans and handler methods on the supervised workers' engine. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "delayq.worker", name = "enabled", havingValue = "true")
  static class InAppWorker {
    @Bean
    DelayqWorkerLifecycle delayqWorker(DelayqConfig config, RedisConnection redis,
        ObjectProvider<JobHandler> handlers, ObjectProvider<JobObserver> observer, DelayqHandlerMethods methods) {
      JobObserver o = observer.getIfAvailable(() -> JobObserver.NONE);
      return new DelayqWorkerLifecycle(config, redis, () -> Stream.concat(handlers.orderedStream(),
          methods.handlers().stream()).map(o::observe).toList());
    }
  }

  /** The scheduler engine in the app: due jobs move with no scheduler process. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "delayq.scheduler", name = "enabled", havingValue = "true")
  static class InAppScheduler {
    @Bean
    DelayqSchedulerLifecycle delayqScheduler(DelayqConfig config) {
      return new DelayqSchedulerLifecycle(config);
    }
  }

  /** Meters, when the app has Micrometer and a registry. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  static class Metrics {
    @Bean
    @ConditionalOnMissingBean
    JobObserver delayqMeters(ObjectProvider<MeterRegistry> registry, DelayqConfig config) {
      MeterRegistry r = registry.getIfAvailable();
      return r == null ? JobObserver.NONE : new MicrometerJobObserver(r, config.queue().name());
    }
  }
}
