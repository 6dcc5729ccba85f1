package dev.delayq.supervisor.host;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A file the supervisor writes in its own directories (the PID file, the logs): opened without
 * following a symbolic link, created 0600 whatever the umask, and kept only when it is this
 * user's own regular file; one that others could read is narrowed to owner only. A link planted
 * in its place is refused, naming it, and never written through.
 */
public final class PrivateFile {
  static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

  private PrivateFile() {}

  /** Opens {@code file} with {@code options}, adding NOFOLLOW_LINKS and mode 0600 when it is created. */
  public static FileChannel open(Path file, OpenOption... options) throws IOException {
    refuseLink(file);
    Set<OpenOption> all = new HashSet<>(List.of(options));
    all.add(LinkOption.NOFOLLOW_LINKS);
    FileChannel channel;
    try {
      channel = FileChannel.open(file, all, OWNER_ONLY);
    } catch (FileSystemException e) {
      refuseLink(file); // a link planted after the check: the open failed on it (ELOOP)
      throw e;
    }
    try {
      requireOwn(file);
      return channel;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** Throws, naming {@code file} and where it points, when it is a symbolic link. */
  public static void refuseLink(Path file) throws IOException {
    if (Files.isSymbolicLink(file)) {
      throw new UntrustedPathException("refusing " + file + ": it is a symbolic link (to "
          + Files.readSymbolicLink(file) + "), which delayq never writes through; remove it");
    }
  }

  private static void requireOwn(Path file) throws IOException {
    PosixFileAttributes a = ThisUser.lstat(file);
    if (!a.isRegularFile()) {
      throw new UntrustedPathException("refusing " + file + ": it is not a regular file; remove it");
    }
    if (!ThisUser.owns(a)) {
      throw new UntrustedPathException("refusing " + file + ": it belongs to " + a.owner().getName() + ", not to "
          + ThisUser.name() + ", the user this supervisor runs as; check it, then remove it");
    }
    Set<PosixFilePermission> owner = EnumSet.noneOf(PosixFilePermission.class);
    owner.addAll(a.permissions());
    owner.retainAll(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.OWNER_EXECUTE));
    if (!owner.equals(a.permissions())) {
      Files.setPosixFilePermissions(file, owner);
    }
  }
}
