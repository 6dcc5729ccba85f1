package dev.delayq.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** {@link ClaimPace}: how many jobs a claim takes at least, from how fast the handlers ran. */
class ClaimPaceTest {
  private static final long US = 1_000;

  @Test
  void unknownHandlersTakeOneAtATime() {
    assertEquals(1, new ClaimPace(64).atLeast());
  }

  @Test
  void quickHandlersRaiseItToTheCapAndOneSlowJobDropsItAtOnce() {
    ClaimPace pace = new ClaimPace(64);
    for (int i = 0; i < 100; i++) {
      pace.ran(20 * US);
    }
    assertEquals(ClaimPace.MOST, pace.atLeast(), "1 ms of 20 us jobs is 50, capped");

    pace.ran(5_000 * US);
    assertEquals(1, pace.atLeast(), "a job slower than the budget: its fair share again");

    pace.ran(20 * US);
    assertEquals(1, pace.atLeast(), "quick jobs lower the pace slowly");
  }

  @Test
  void itNeverTakesMoreThanThePrefetch() {
    ClaimPace pace = new ClaimPace(4);
    for (int i = 0; i < 100; i++) {
      pace.ran(US);
    }
    assertEquals(4, pace.atLeast());
  }

  @Test
  void itTakesWhatRunsWithinTheBudget() {
    ClaimPace pace = new ClaimPace(64);
    for (int i = 0; i < 200; i++) {
      pace.ran(250 * US);
    }
    assertEquals(4, pace.atLeast(), "1 ms of 250 us jobs");
  }
}
