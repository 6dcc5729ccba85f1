package dev.delayq.supervisor.host;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.supervisor.OtherUser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrustedPathTest {
  @TempDir
  Path dir;

  @Test
  void aPathUnderADirectoryOthersCanWriteIsRefusedNamingThatDirectory() throws Exception {
    Path open = Files.createDirectories(dir.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path home = Files.createDirectories(open.resolve("home"));

    UntrustedPathException refused = assertThrows(UntrustedPathException.class, () -> TrustedPath.check(home));

    assertTrue(refused.getMessage().startsWith("refusing " + home + ": " + open + ", on the way to " + home
        + ", can be written by others than its owner"), refused.getMessage());
    assertTrue(refused.getMessage().contains("(mode 0777)"), refused.getMessage());
  }

  @Test
  void aStickyDirectoryOthersCanWriteIsOnTheWayAsTmpIs() throws Exception {
    Path sticky = Files.createDirectories(dir.resolve("tmp"));
    Files.setAttribute(sticky, "unix:mode", 01777);
    Path home = Files.createDirectories(sticky.resolve("home"));

    assertDoesNotThrow(() -> TrustedPath.check(home.resolve("run/not-there-yet")));
  }

  @Test
  void aLinkOnTheWayIsFollowedAndWhereItLeadsIsCheckedToo() throws Exception {
    Path open = Files.createDirectories(dir.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    Files.createDirectories(open.resolve("home"));
    Path link = Files.createSymbolicLink(dir.resolve("home"), Path.of("open/home"));

    UntrustedPathException refused = assertThrows(UntrustedPathException.class,
        () -> TrustedPath.check(link.resolve("run")));

    assertTrue(refused.getMessage().contains(open + ", on the way to " + link.resolve("run")), refused.getMessage());
  }

  @Test
  void groupWriteIsNoOneElsesOnlyWhenTheGroupIsTheOwnersPrivateOne() throws Exception {
    OtherUser.assumeAvailable();
    Path own = Files.createDirectories(dir.resolve("own"));     // root:root, as umask 002 leaves a checkout
    Files.setPosixFilePermissions(own, PosixFilePermissions.fromString("rwxrwxr-x"));
    Path shared = Files.createDirectories(dir.resolve("shared"));
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxr-x"));
    Files.getFileAttributeView(shared, PosixFileAttributeView.class).setGroup(OtherUser.group());

    assertDoesNotThrow(() -> TrustedPath.check(own.resolve("home")));
    UntrustedPathException refused = assertThrows(UntrustedPathException.class,
        () -> TrustedPath.check(shared.resolve("home")));
    assertTrue(refused.getMessage().startsWith("refusing " + shared.resolve("home") + ": " + shared + ", on the way to "
        + shared.resolve("home") + ", can be written by others than its owner root (mode 0775)"), refused.getMessage());
  }
}
