package dev.delayq.spring.boot3;

import dev.delayq.spring.DelayqAutoConfiguration;
import dev.delayq.spring.DelayqHealthCheck;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code delayq} health indicator, when the app has Spring Boot 3's health API (actuator). */
@AutoConfiguration(after = DelayqAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
public class DelayqHealthAutoConfiguration {

  @Bean
  @ConditionalOnBean(DelayqHealthCheck.class)
  @ConditionalOnMissingBean(name = "delayqHealthIndicator")
  public HealthIndicator delayqHealthIndicator(DelayqHealthCheck check) {
    return new DelayqHealthIndicator(check);
  }
}
