package dev.delayq.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PidFileTest {
  @TempDir
  Path dir;

  @Test
  void staleFileOfADeadSupervisorIsTakenOver() throws Exception {
    Path path = dir.resolve("run/supervisor.pid");
    Files.createDirectories(path.getParent());
    Files.writeString(path, "999999\n");
    try (PidFile pid = PidFile.acquire(path)) {
      assertEquals(OptionalLong.of(999999), pid.previous());
      assertEquals(OptionalLong.of(ProcessHandle.current().pid()), PidFile.read(path));
    }
    assertFalse(Files.exists(path), "closing removes the file");
  }

  @Test
  void freshFileHoldsThisProcessPid() throws Exception {
    Path path = dir.resolve("supervisor.pid");
    try (PidFile pid = PidFile.acquire(path)) {
      assertEquals(OptionalLong.empty(), pid.previous());
      assertEquals(ProcessHandle.current().pid() + "\n", Files.readString(path));
    }
  }
}
