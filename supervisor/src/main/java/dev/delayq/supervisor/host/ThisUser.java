package dev.delayq.supervisor.host;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;

/**
 * The user this process runs as, and what of the file system it owns. Compared by uid, not by
 * name: a process whose uid has no name (a container's arbitrary uid) still owns its files.
 */
public final class ThisUser {
  private static final UserPrincipal SELF = lookup();

  private ThisUser() {}

  public static String name() {
    return System.getProperty("user.name");
  }

  public static boolean is(UserPrincipal user) {
    return SELF.equals(user);
  }

  private static UserPrincipal lookup() {
    try {
      // the lookup service takes a uid in digits; principals of one uid are equal whatever their name
      return FileSystems.getDefault().getUserPrincipalLookupService()
          .lookupPrincipalByName(Long.toString(new UnixSystem().getUid()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot look up this process's user", e);
    }
  }

  public static boolean owns(PosixFileAttributes attributes) {
    return is(attributes.owner());
  }

  /** The attributes of {@code path} itself: a symbolic link is not followed. */
  public static PosixFileAttributes lstat(Path path) throws IOException {
    return Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * Whether {@code path} (itself) can be written by someone other than its owner: by others, or by
   * its group unless that is its owner's private group (the group of the same name and id as the
   * user, as login.defs' USERGROUPS_ENAB makes them, under which umask 002 leaves directories
   * 0775: no one else is in it).
   */
  static boolean writableByOthers(Path path, PosixFileAttributes a) throws IOException {
    if (a.permissions().contains(PosixFilePermission.OTHERS_WRITE)) {
      return true;
    }
    if (!a.permissions().contains(PosixFilePermission.GROUP_WRITE)) {
      return false;
    }
    int uid = (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    int gid = (Integer) Files.getAttribute(path, "unix:gid", LinkOption.NOFOLLOW_LINKS);
    return uid != gid || !a.group().getName().equals(a.owner().getName());
  }

  /** The mode of {@code path} itself in octal, e.g. {@code 0755}, {@code 1777} (sticky). */
  static String mode(Path path) {
    try {
      return String.format("%04o", modeBits(path));
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  /** The permission bits of {@code path} itself, with setuid, setgid and sticky. */
  static int modeBits(Path path) throws IOException {
    return ((Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS)) & 07777;
  }
}
