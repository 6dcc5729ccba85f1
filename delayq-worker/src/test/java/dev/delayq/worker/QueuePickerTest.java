package dev.delayq.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link QueuePicker}, driven by crafted claim answers. */
class QueuePickerTest {

  /** Claims {@code claims} times from the first queue of the order that has jobs (has[i]); the jobs per queue. */
  private static int[] run(QueuePicker p, int claims, int batch, boolean... has) {
    int[] got = new int[has.length];
    for (int i = 0; i < claims; i++) {
      for (int q : p.order()) {
        if (has[q]) {
          p.claimed(q, batch);
          got[q] += batch;
          break;
        }
        p.foundEmpty(q);
      }
    }
    return got;
  }

  @Test
  void weights631GiveExactlyTheirSharesInterleavedWhileEveryQueueHasJobs() {
    QueuePicker p = new QueuePicker(List.of(6, 3, 1), false, 0);

    StringBuilder first10 = new StringBuilder();
    for (int i = 0; i < 10; i++) {
      int q = p.order()[0];
      p.claimed(q, 1);
      first10.append("cdl".charAt(q));
    }
    assertEquals("cdccdcldcc".length(), first10.length());
    assertEquals(6, first10.chars().filter(c -> c == 'c').count(), first10.toString());
    assertEquals(3, first10.chars().filter(c -> c == 'd').count(), first10.toString());
    assertEquals(1, first10.chars().filter(c -> c == 'l').count(), first10.toString());
    assertTrue(!first10.toString().contains("ccc"), "interleaved, not in runs: " + first10);
    assertArrayEquals(new int[] {600, 300, 100}, run(p, 1000, 1, true, true, true));
  }

  @Test
  void sharesAreCountedInJobsSoBigBatchesDoNotSkewThem() {
    QueuePicker p = new QueuePicker(List.of(6, 3, 1), false, 0);

    int[] got = run(p, 100, 32, true, true, true);

    assertArrayEquals(new int[] {1920, 960, 320}, got);
  }

  @Test
  void aQueueWithNothingDueHandsItsShareToTheOthersInProportionAndNoneStarves() {
    QueuePicker p = new QueuePicker(List.of(6, 3, 1), false, 0);

    assertArrayEquals(new int[] {0, 750, 250}, run(p, 1000, 1, false, true, true));
    int[] after = run(p, 1000, 1, true, true, true);
    assertArrayEquals(new int[] {600, 300, 100}, after, "critical hoarded no credit while it was empty");
  }

  @Test
  void strictOrderIsTheConfiguredOrderWhateverWasClaimed() {
    QueuePicker p = new QueuePicker(List.of(1, 1, 1), true, 2);

    p.claimed(0, 5);

    assertArrayEquals(new int[] {0, 1, 2}, p.order());
    assertArrayEquals(new int[] {0, 0, 10}, run(p, 10, 1, false, false, true));
  }

  @Test
  void theHomeQueueIsTheSlotModuloTheQueuesAndConsumersStartAtDifferentPointsOfTheRound() {
    assertEquals(1, new QueuePicker(List.of(6, 3, 1), false, 4).home());
    assertEquals(0, new QueuePicker(List.of(6, 3, 1), false, 0).order()[0]);
    assertEquals(1, new QueuePicker(List.of(6, 3, 1), false, 1).order()[0],
        "the second consumer's round is one step on");
  }
}
