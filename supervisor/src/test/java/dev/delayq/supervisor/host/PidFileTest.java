package dev.delayq.supervisor.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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

  @Test
  void aLinkPlantedAsThePidFileIsRefusedNamingItAndNeverWrittenThrough() throws Exception {
    Path target = dir.resolve("root-only");
    Files.writeString(target, "root's own\n");
    Path path = dir.resolve("supervisor.pid");
    Files.createSymbolicLink(path, target);

    IOException refused = assertThrows(IOException.class, () -> PidFile.acquire(path).close());

    assertTrue(refused.getMessage().startsWith("refusing " + path + ": it is a symbolic link (to " + target + ")"),
        refused.getMessage());
    assertEquals("root's own\n", Files.readString(target));
  }

  @Test
  void thePidFileIsOwnerOnlyWhateverTheUmask() throws Exception {
    Path path = dir.resolve("supervisor.pid");
    Files.writeString(path, "999999\n");
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-r--r--"));
    try (PidFile pid = PidFile.acquire(path)) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(path)));
    }
    try (PidFile pid = PidFile.acquire(dir.resolve("fresh.pid"))) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("fresh.pid"))));
    }
  }
}
