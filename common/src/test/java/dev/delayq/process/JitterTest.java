package dev.delayq.process;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class JitterTest {
  @Test
  void aWaitIsSpreadOverItsSecondHalf() {
    assertEquals(50, Jitter.spread(100, 0.0));
    assertEquals(75, Jitter.spread(100, 0.5));
    assertEquals(99, Jitter.spread(100, 0.999));
    assertEquals(2_500, Jitter.spread(5_000, 0.0));
  }
}
