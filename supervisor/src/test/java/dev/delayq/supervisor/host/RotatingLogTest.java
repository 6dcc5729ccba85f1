package dev.delayq.supervisor.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RotatingLogTest {
  @TempDir
  Path dir;

  private static void write(RotatingLog log, String text) throws IOException {
    byte[] b = text.getBytes();
    log.write(b, 0, b.length);
  }

  @Test
  void aLogRotatesBeforeItWouldPassItsSizeAndKeepsOnlyItsBackups() throws IOException {
    Path file = dir.resolve("worker-1.log");
    try (RotatingLog log = new RotatingLog(file, new LogRotation(100, 2))) {
      for (int i = 0; i < 40; i++) {
        write(log, String.format("line %03d of twenty", i) + "\n");      // 19 bytes
      }
    }
    for (Path f : List.of(file, file.resolveSibling("worker-1.log.1"), file.resolveSibling("worker-1.log.2"))) {
      assertTrue(Files.size(f) <= 100, f + " is " + Files.size(f) + " bytes");
      assertTrue(Files.readString(f).endsWith("\n"), f + " ends with a whole line");
    }
    assertFalse(Files.exists(file.resolveSibling("worker-1.log.3")), "only 2 backups are kept");
    List<String> kept = new ArrayList<>();
    kept.addAll(Files.readAllLines(file.resolveSibling("worker-1.log.2")));
    kept.addAll(Files.readAllLines(file.resolveSibling("worker-1.log.1")));
    kept.addAll(Files.readAllLines(file));
    assertEquals("line 039 of twenty", kept.get(kept.size() - 1));
    for (int i = 1; i < kept.size(); i++) {
      assertEquals(Integer.parseInt(kept.get(i - 1).substring(5, 8)) + 1, Integer.parseInt(kept.get(i).substring(5, 8)),
          "the newest lines, in order, none lost between the files");
    }
  }

  @Test
  void aChunkIsSplitAfterItsLastNewlineSoLinesStayWhole() throws IOException {
    Path file = dir.resolve("scheduler.log");
    try (RotatingLog log = new RotatingLog(file, new LogRotation(30, 1))) {
      write(log, "first line of the log\n");      // 22 bytes
      write(log, "second\nthird par");            // "second\n" fits, "third par" would not
      write(log, "t of a line\n");
    }
    assertEquals("first line of the log\nsecond\n", Files.readString(file.resolveSibling("scheduler.log.1")));
    assertEquals("third part of a line\n", Files.readString(file));
  }

  @Test
  void aBurstOfLinesReadInOneChunkIsSpreadOverFilesWithinTheLimit() throws IOException {
    Path file = dir.resolve("worker-2.log");
    StringBuilder burst = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      burst.append(String.format("line %03d of twenty", i)).append('\n');      // 19 bytes
    }
    try (RotatingLog log = new RotatingLog(file, new LogRotation(100, 10))) {
      write(log, burst.toString());   // 760 bytes at once, as a pipe read under load returns them
    }
    List<String> kept = new ArrayList<>();
    for (int k = 10; k >= 0; k--) {
      Path f = k == 0 ? file : file.resolveSibling("worker-2.log." + k);
      if (Files.exists(f)) {
        assertTrue(Files.size(f) <= 100, f + " is " + Files.size(f) + " bytes");
        assertTrue(Files.readString(f).endsWith("\n"), f + " ends with a whole line");
        kept.addAll(Files.readAllLines(f));
      }
    }
    assertEquals(40, kept.size(), "every line kept, in order: " + kept);
    for (int i = 0; i < 40; i++) {
      assertEquals(String.format("line %03d of twenty", i), kept.get(i));
    }
  }

  @Test
  void withNoBackupsTheLogStartsAfreshAndWithNoLimitItNeverRotates() throws IOException {
    Path fresh = dir.resolve("a.log");
    try (RotatingLog log = new RotatingLog(fresh, new LogRotation(10, 0))) {
      write(log, "0123456789\n");
      write(log, "abc\n");
    }
    assertEquals("abc\n", Files.readString(fresh));
    assertFalse(Files.exists(fresh.resolveSibling("a.log.1")));

    Path unbounded = dir.resolve("b.log");
    try (RotatingLog log = new RotatingLog(unbounded, new LogRotation(0, 3))) {
      for (int i = 0; i < 100; i++) {
        write(log, "0123456789\n");
      }
    }
    assertEquals(1100, Files.size(unbounded));
    assertFalse(Files.exists(unbounded.resolveSibling("b.log.1")));
  }

  @Test
  void anExistingLogIsAppendedToAndCountsTowardsTheLimit() throws IOException {
    Path file = dir.resolve("redis.log");
    Files.writeString(file, "from the last run\n");   // 18 bytes
    try (RotatingLog log = new RotatingLog(file, new LogRotation(25, 1))) {
      write(log, "new run\n");
      write(log, "more\n");
    }
    assertEquals("from the last run\n", Files.readString(file.resolveSibling("redis.log.1")));
    assertEquals("new run\nmore\n", Files.readString(file));
  }

  @Test
  void aLinkPlantedAsTheLogIsRefusedNamingItAndNeverWrittenThrough() throws IOException {
    Path target = dir.resolve("root-only");
    Files.writeString(target, "root's own\n");
    Path file = dir.resolve("scheduler.log");
    Files.createSymbolicLink(file, target);

    try (RotatingLog log = new RotatingLog(file, new LogRotation(0, 1))) {
      IOException refused = assertThrows(IOException.class, () -> write(log, "a line\n"));
      assertTrue(refused.getMessage().startsWith("refusing " + file + ": it is a symbolic link (to " + target + ")"),
          refused.getMessage());
    }
    assertEquals("root's own\n", Files.readString(target));
  }

  @Test
  void aLogAndItsBackupsAreCreatedOwnerOnlyWhateverTheUmask() throws IOException {
    Path file = dir.resolve("worker-1.log");
    try (RotatingLog log = new RotatingLog(file, new LogRotation(10, 1))) {
      write(log, "0123456789\n");
      write(log, "abc\n");
    }
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
        file.resolveSibling("worker-1.log.1"))));
  }
}
