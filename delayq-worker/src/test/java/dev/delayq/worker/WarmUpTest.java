package dev.delayq.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.job.RetryPolicy;
import dev.delayq.redis.Keys;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link WarmUp}: a worker's start-up run of its claim-to-handler path. It is given the queue's
 * keys and no connection (its stats recorder is never flushed), so it cannot change Redis by
 * construction; what can fail is the path itself, which must run each round to a done outcome.
 */
class WarmUpTest {
  private final Keys keys = RedisFixture.freshKeys();

  @Test
  void runsThePathToItsOutcomeWithoutAJob() {
    int acked = WarmUp.run(keys, Duration.ofSeconds(60), new RetryPolicy(Duration.ofSeconds(2), Duration.ofHours(1), 0.2),
        WarmUp.ROUNDS);

    assertEquals(WarmUp.ROUNDS, acked, "each round ran to a done outcome");
  }

  @Test
  void keepsTheCallersInterrupt() {
    Thread.currentThread().interrupt();
    try {
      WarmUp.run(keys, Duration.ofSeconds(60), new RetryPolicy(Duration.ofSeconds(2), Duration.ofHours(1), 0.2), 3);
      assertTrue(Thread.currentThread().isInterrupted(), "a slot clears it at each run; the warm-up sets it back");
    } finally {
      Thread.interrupted();
    }
  }
}
