package dev.delayq.spring;

import dev.delayq.EnqueueGate;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Enqueue after commit: with spring-tx on the classpath, the {@code DelayQueue} bean holds the
 * enqueues made inside a Spring-managed transaction until it commits, unless
 * {@code delayq.producer.after-commit=false}. An app with no transaction manager never has a
 * transaction, so its enqueues go at once as before.
 */
@AutoConfiguration
@EnableConfigurationProperties(DelayqProperties.class)
@ConditionalOnClass(name = "org.springframework.transaction.support.TransactionSynchronizationManager")
public class DelayqAfterCommitAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public EnqueueGate delayqEnqueueGate(DelayqProperties properties) {
    return properties.getProducer().isAfterCommit() ? new AfterCommitGate() : EnqueueGate.NOW;
  }
}
