package dev.delayq.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

    for (int i = 2; i <= 6; i++) {
      record.running(1, i + "|j" + i);
      record.finished(1, i + "|j" + i);
    }
    record.idle(1);
    record.running(1, "7|j7");
    // the ring holds the last FINISHED_KEPT, in ring order
    assertEquals(new RunningFile.Slot("7|j7", List.of("5|j5", "6|j6", "3|j3", "4|j4")),
        RunningFile.readSlots(path).get(1));
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
