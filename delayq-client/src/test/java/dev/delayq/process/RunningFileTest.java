package dev.delayq.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
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
