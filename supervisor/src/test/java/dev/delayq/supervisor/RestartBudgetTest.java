package dev.delayq.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RestartBudgetTest {
  private static final long S = 1_000_000_000L;

  @Test
  void allowsIntensityRestartsWithinThePeriodAndRefusesTheNext() {
    RestartBudget budget = new RestartBudget(5, Duration.ofSeconds(60));
    for (int i = 0; i < 5; i++) {
      assertTrue(budget.tryRestart(i * S), "restart " + (i + 1));
    }
    assertFalse(budget.tryRestart(10 * S));
  }

  @Test
  void restartsOlderThanThePeriodSlideOutOfTheWindow() {
    RestartBudget budget = new RestartBudget(2, Duration.ofSeconds(60));
    assertTrue(budget.tryRestart(0));
    assertTrue(budget.tryRestart(30 * S));
    assertFalse(budget.tryRestart(59 * S));
    assertTrue(budget.tryRestart(120 * S), "all earlier ones are more than 60s old");
    assertEquals(1, budget.used(120 * S));
  }

  @Test
  void worksAcrossNanoTimeWrapAround() {
    RestartBudget budget = new RestartBudget(1, Duration.ofSeconds(60));
    long nearMax = Long.MAX_VALUE - 10 * S;
    assertTrue(budget.tryRestart(nearMax));
    assertFalse(budget.tryRestart(nearMax + 20 * S), "overflowed nanoTime is still 20s later");
    assertTrue(budget.tryRestart(nearMax + 200 * S));
  }

  @Test
  void resetForgetsEveryRestart() {
    RestartBudget budget = new RestartBudget(1, Duration.ofSeconds(60));
    budget.tryRestart(0);
    budget.reset();
    assertTrue(budget.tryRestart(1));
  }

  @Test
  void refusesANonsensicalBudget() {
    assertThrows(IllegalArgumentException.class, () -> new RestartBudget(0, Duration.ofSeconds(60)));
    assertThrows(IllegalArgumentException.class, () -> new RestartBudget(1, Duration.ZERO));
  }
}
