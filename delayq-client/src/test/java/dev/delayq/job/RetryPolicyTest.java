package dev.delayq.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link RetryPolicy#backoff}: a pure function of the attempt and a caller-chosen random number. */
class RetryPolicyTest {
  private final RetryPolicy noJitter = new RetryPolicy(Duration.ofSeconds(2), Duration.ofHours(1), 0);

  @ParameterizedTest
  @CsvSource({"1, 2000", "2, 4000", "3, 8000", "4, 16000", "5, 32000", "11, 2048000"})
  void backoffDoublesFromTheBaseDelay(int attempt, long millis) {
    assertEquals(Duration.ofMillis(millis), noJitter.backoff(attempt, 0.5));
  }

  @Test
  void backoffIsCappedAtTheMaxDelay() {
    assertEquals(Duration.ofHours(1), noJitter.backoff(12, 0.5));
    assertEquals(Duration.ofHours(1), noJitter.backoff(1_000_000, 0.5));
    RetryPolicy tight = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(5), 0);
    assertEquals(Duration.ofSeconds(4), tight.backoff(3, 0.5));
    assertEquals(Duration.ofSeconds(5), tight.backoff(4, 0.5));
  }

  @Test
  void attemptBelowOneWaitsTheBaseDelay() {
    assertEquals(Duration.ofSeconds(2), noJitter.backoff(0, 0.5));
    assertEquals(Duration.ofSeconds(2), noJitter.backoff(-3, 0.5));
  }

  @Test
  void jitterSpreadsTheDelayByItsFractionEachWay() {
    RetryPolicy p = RetryPolicy.defaults(); // 2 s, 1 h, 20 %

    assertEquals(Duration.ofMillis(1600), p.backoff(1, 0.0));
    assertEquals(Duration.ofMillis(2000), p.backoff(1, 0.5));
    assertEquals(Duration.ofMillis(2400), p.backoff(1, 0.9999999));
    assertEquals(Duration.ofMillis(6400), p.backoff(3, 0.0));
    assertEquals(Duration.ofMillis(9600), p.backoff(3, 0.9999999));
  }

  @Test
  void jitteredDelayStaysWithinItsBoundsAtTheCap() {
    RetryPolicy p = RetryPolicy.defaults();

    assertEquals(Duration.ofMinutes(48), p.backoff(30, 0.0));
    assertEquals(Duration.ofMinutes(72), p.backoff(30, 0.9999999));
  }

  @Test
  void everyRandomInTheRangeGivesADelayWithinTheBounds() {
    RetryPolicy p = RetryPolicy.defaults();
    for (double r = 0; r < 1; r += 0.01) {
      long ms = p.backoff(2, r).toMillis();
      assertTrue(ms >= 3200 && ms <= 4800, r + " gave " + ms);
    }
  }

  @Test
  void badPolicyIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(Duration.ZERO, Duration.ofSeconds(1), 0));
    assertThrows(IllegalArgumentException.class,
        () -> new RetryPolicy(Duration.ofSeconds(2), Duration.ofSeconds(1), 0));
    assertThrows(IllegalArgumentException.class,
        () -> new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(2), 1.0));
    assertThrows(IllegalArgumentException.class,
        () -> new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(2), -0.1));
  }
}
