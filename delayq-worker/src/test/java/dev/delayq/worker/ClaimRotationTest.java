package dev.delayq.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** {@link ClaimRotation}, driven by crafted claim answers. */
class ClaimRotationTest {

  @Test
  void theFirstClaimScansEveryShardFromTheFirst() {
    ClaimRotation r = new ClaimRotation(4, 3);

    assertEquals(0, r.first());
    assertEquals(3, r.tries());
    assertEquals(1, r.home(), "the 5th consumer of a worker waits on shard 4 mod 3");
  }

  @Test
  void aClaimThatFoundJobsStartsTheNextScanAtTheShardAfterTheOneThatServedIt() {
    ClaimRotation r = new ClaimRotation(0, 3);

    r.claimed(2, true);

    assertEquals(0, r.first(), "after the last shard comes the first");
    assertEquals(3, r.tries());
  }

  @Test
  void afterAnEmptyScanOnlyTheHomeShardIsTriedThenAWaitScansAgain() {
    ClaimRotation r = new ClaimRotation(2, 3);
    r.claimed(0, false);

    assertEquals(2, r.first());
    assertEquals(1, r.tries());

    r.waited();
    assertEquals(1, r.first(), "the scan goes on after the shard that answered last");
    assertEquals(3, r.tries());
  }

  @Test
  void oneShardIsAlwaysTheHomeShard() {
    ClaimRotation r = new ClaimRotation(7, 1);
    r.claimed(0, true);

    assertEquals(0, r.first());
    assertEquals(1, r.tries());
    assertEquals(0, r.home());
  }
}
