package dev.delayq.redisserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the shipped redis-server is run from: never a fixed path in a shared directory, and a
 * program planted where it is extracted is replaced, never run.
 */
class RedisBinaryTest {
  @TempDir
  Path dir;

  private static String version(Path binary) throws Exception {
    Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS));
    return new String(p.getInputStream().readAllBytes());
  }

  @Test
  void aProgramPlantedWhereTheBinaryIsExtractedIsReplacedNotRun() throws Exception {
    Path privateDir = dir.resolve("run/bin");
    Path marker = dir.resolve("planted-program-ran");
    Path first = RedisBinary.shipped(privateDir);
    Files.writeString(first, "#!/bin/sh\ntouch " + marker + "\necho planted\n");
    Files.setPosixFilePermissions(first, PosixFilePermissions.fromString("rwx------"));

    Path again = RedisBinary.shipped(privateDir);

    assertEquals(first, again);
    assertTrue(version(again).contains("Redis server v="), "the real redis-server");
    assertFalse(Files.exists(marker), "the planted program never ran");
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(privateDir)));
  }

  @Test
  void aSymlinkPlantedThereIsReplacedAndItsTargetLeftAlone() throws Exception {
    Path privateDir = dir.resolve("bin");
    Path name = RedisBinary.shipped(privateDir);
    Files.delete(name);
    Path elsewhere = dir.resolve("someone-elses-file");
    Files.writeString(elsewhere, "untouched");
    Files.createSymbolicLink(name, elsewhere);

    Path binary = RedisBinary.shipped(privateDir);

    assertFalse(Files.isSymbolicLink(binary));
    assertTrue(version(binary).contains("Redis server v="));
    assertEquals("untouched", Files.readString(elsewhere));
  }

  @Test
  void aDirectoryOfOursThatOthersCouldWriteIsNarrowedTo0700() throws Exception {
    Path shared = Files.createDirectory(dir.resolve("shared"));
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));

    RedisBinary.shipped(shared);

    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(shared)));
  }

  @Test
  void aDirectoryAnotherUserOwnsIsRefused() throws Exception {
    Assumptions.assumeTrue(System.getProperty("user.name").equals("root"), "only root can give a directory away");
    Path theirs = Files.createDirectory(dir.resolve("theirs"));
    Files.setOwner(theirs, theirs.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));

    IllegalStateException e = assertThrows(IllegalStateException.class, () -> RedisBinary.shipped(theirs));
    assertTrue(e.getMessage().contains(theirs.toString()) && e.getMessage().contains("owned by nobody"), e.getMessage());
  }

  @Test
  void withoutADirectoryItIsExtractedIntoAPrivateTemporaryOneNotAFixedSharedPath() throws Exception {
    Path binary = RedisBinary.shipped();

    Path parent = binary.getParent();
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(parent)));
    assertNotEquals(Path.of(System.getProperty("java.io.tmpdir")), parent, "not straight in the shared temp dir");
    assertEquals(binary, RedisBinary.shipped(), "once per JVM");
  }

  @Test
  void aRedisServerOthersCouldReplaceIsNotTakenFromPath() throws Exception {
    Path shared = Files.createDirectory(dir.resolve("path-dir"));
    Path planted = Files.writeString(shared.resolve("redis-server"), "#!/bin/sh\n");
    Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertTrue(RedisBinary.trusted(planted));

    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertFalse(RedisBinary.trusted(planted), "its directory is writable by every user");
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertFalse(RedisBinary.trusted(planted), "the file itself is writable by every user");
  }
}
