package dev.delayq.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void startsAtOneSecondAndDoublesUpToSixty() {
    Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));
    long[] want = {1, 2, 4, 8, 16, 32, 60, 60};
    for (long s : want) {
      assertEquals(Duration.ofSeconds(s), b.next());
    }
  }

  @Test
  void resetGoesBackToTheMinimum() {
    Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));
    b.next();
    b.next();
    b.reset();
    assertEquals(Duration.ofSeconds(1), b.peek());
  }

  @Test
  void neverWaitsLessThanOneSecond() {
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofMillis(500), Duration.ofSeconds(60)));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(10), Duration.ofSeconds(5)));
  }
}
