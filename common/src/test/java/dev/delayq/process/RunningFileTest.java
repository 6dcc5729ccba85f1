package dev.delayq.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link RunningFile}: what one process writes, another reads. */
class RunningFileTest {
  @TempDir
  Path dir;

  @Test
  void eachSlotSaysWhatItRunsAndNothingOnceIdle() {
    Path path = RunningFile.pathFor(dir, "worker-1", 4242);
    RunningFile record = RunningFile.create(path, 4242, 3);

    record.running(0, "17|order-1001");
    record.running(2, "18|日本-job");
    assertEquals(Map.of(0, "17|order-1001", 2, "18|日本-job"), RunningFile.read(path));

    record.idle(0);
    record.running(2, "19|x");
    assertEquals(Map.of(2, "19|x"), RunningFile.read(path));
    assertEquals(dir.resolve("worker-1.4242.running"), path);
  }

  @Test
  void aSlotKeepsTheLastDeliveriesItFinishedInARing() {
    Path path = RunningFile.pathFor(dir, "worker-1", 4243);
    RunningFile record = RunningFile.create(path, 4243, 2);

    record.running(1, "1|a");
    record.finished(1, "1|a");
    record.idle(1);
    assertEquals(Map.of(1, new RunningFile.Slot(null, List.of("1|a"))), RunningFile.readSlots(path));
    assertEquals(Map.of(), RunningFile.read(path), "finished is not running");

    int last = RunningFile.FINISHED_KEPT + 2;
    for (int i = 2; i <= last; i++) {
      record.running(1, i + "|j" + i);
      record.finished(1, i + "|j" + i);
    }
    record.idle(1);
    record.running(1, "x|jx");
    // the ring holds the last FINISHED_KEPT, in ring order: finish i went to cell (i - 1) mod size
    List<String> ring = new java.util.ArrayList<>();
    for (int cell = 0; cell < RunningFile.FINISHED_KEPT; cell++) {
      int i = cell + 1;
      while (i + RunningFile.FINISHED_KEPT <= last) {
        i += RunningFile.FINISHED_KEPT;
      }
      ring.add(i + "|j" + i);
    }
    assertEquals(new RunningFile.Slot("x|jx", ring), RunningFile.readSlots(path).get(1));
  }

  /**
   * A delivery whose acknowledgement is not sent stays in the ring however many finish after it
   * (one shard's acknowledgements held back while the others' are sent): a crash then still
   * acknowledges it instead of running it again and charging it.
   */
  @Test
  void aFinishedDeliveryTheConsumerKeepsIsNotPushedOutOfTheRing() {
    Path path = RunningFile.pathFor(dir, "worker-1", 4244);
    RunningFile record = RunningFile.create(path, 4244, 1);
    java.util.Set<String> unsent = new java.util.HashSet<>(List.of("1|held"));
    record.finished(0, "1|held", unsent::contains);
    for (int i = 2; i <= 3 * RunningFile.FINISHED_KEPT; i++) {
      record.finished(0, i + "|j" + i, unsent::contains);
    }
    List<String> ring = RunningFile.readSlots(path).get(0).finished();
    assertEquals(RunningFile.FINISHED_KEPT, ring.size());
    assertTrue(ring.contains("1|held"), "the unsent one is kept: " + ring);
    String last = 3 * RunningFile.FINISHED_KEPT + "|j" + 3 * RunningFile.FINISHED_KEPT;
    assertTrue(ring.contains(last), "and the newest is there too: " + ring);
  }

  @Test
  void aRecordOfAWorkerBeforeTheCellCountWasWrittenIsStillRead() throws Exception {
    // "DQR2": magic, pid, slots, then 1 running + 4 finished cells of 1,024 bytes per slot
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16 + 2 * 5 * 1024).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.putInt(0, 0x44515232).putInt(4, 99).putInt(8, 2);
    int slot1 = 16 + 5 * 1024;
    byte[] running = "9|r".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] finished = "8|f".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    b.putInt(slot1, running.length).put(slot1 + 4, running);
    b.putInt(slot1 + 2 * 1024, finished.length).put(slot1 + 2 * 1024 + 4, finished);
    Path path = dir.resolve("old.running");
    Files.write(path, b.array());

    assertEquals(Map.of(1, new RunningFile.Slot("9|r", List.of("8|f"))), RunningFile.readSlots(path));
  }

  @Test
  void aMissingOrForeignFileSaysNothing() throws Exception {
    assertEquals(Map.of(), RunningFile.read(dir.resolve("none.running")));
    Files.writeString(dir.resolve("other.running"), "not a crash record at all");
    assertEquals(Map.of(), RunningFile.read(dir.resolve("other.running")));
  }

  @Test
  void deleteRemovesTheFile() {
    Path path = RunningFile.pathFor(dir, "worker-2", 7);
    RunningFile.create(path, 7, 1).delete();

    assertFalse(RunningFile.exists(path));
  }
}
