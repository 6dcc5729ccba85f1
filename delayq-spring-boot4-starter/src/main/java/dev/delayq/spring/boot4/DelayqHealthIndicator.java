package dev.delayq.spring.boot4;

import dev.delayq.spring.DelayqHealthCheck;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The actuator's {@code delayq} health on Spring Boot 4: UP with the backlog, the oldest
 * overdue job and the depths; DOWN when Redis cannot be read (with why) or when the in-app worker
 * stopped claiming after a failure.
 */
final class DelayqHealthIndicator extends AbstractHealthIndicator {
  private final DelayqHealthCheck check;

  DelayqHealthIndicator(DelayqHealthCheck check) {
    super("delayq: Redis cannot be read");
    this.check = check;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    DelayqHealthCheck.Reading reading = check.read();
    (reading.up() ? builder.up() : builder.down()).withDetails(reading.details());
  }
}
