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
    assertEquals(2, r.first(), "the scan starts where the wait's job came from: its ack rides on it");
    assertEquals(3, r.tries());
  }

  @Test
  void aClaimTheWatchSentTriesThatShardAloneAndTheOneAfterItScansFromTheShardAfter() {
    ClaimRotation r = new ClaimRotation(0, 3);
    r.claimed(1, false);

    r.sentTo(2);
    assertEquals(2, r.first());
    assertEquals(1, r.tries(), "the watch saw jobs there: no other shard's length is asked beside it");

    r.claimed(2, true);
    assertEquals(0, r.first());
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
