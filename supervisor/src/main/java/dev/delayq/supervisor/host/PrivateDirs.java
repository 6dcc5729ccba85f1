package dev.delayq.supervisor.host;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the supervisor's directories, {@code run/}, {@code logs/} and {@code data/}, its own
 * at start, or refuses them. Each lies on a {@link TrustedPath}; a missing one is created 0700;
 * an existing one must be a directory of this user's that no one else can write. One that others
 * can only read (0755, as umask 022 made them before; 0775 under umask 002 with the user's private
 * group) is narrowed to 0700 and said once: what it holds is job data, logs and secrets, and no
 * one else could have put anything in it. Everything in it (four levels down) must be this user's own file, directory or socket, never a symbolic
 * link: a link is what would lead the supervisor, or the embedded Redis writing its append-only
 * file, to write through into another file. What others could read in it is narrowed to owner
 * only, and said once.
 */
public final class PrivateDirs {
  private static final Logger log = LoggerFactory.getLogger(PrivateDirs.class);
  private static final int DEPTH = 4;
  private static final Set<PosixFilePermission> OTHERS = EnumSet.of(
      PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
      PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

  private PrivateDirs() {}

  /** Checks, creates and narrows each of {@code dirs}; throws naming the first that is not safe. */
  public static void prepare(Home home, List<Path> dirs) throws IOException {
    for (Path dir : dirs) {
      Path d = dir.toAbsolutePath().normalize();
      if (home.home().startsWith(d) || home.install().startsWith(d)) {
        throw new UntrustedPathException("refusing " + d + " as a directory of the supervisor's own: the home "
            + home.home() + " or the install " + home.install() + " lies in it; give run/, logs/ and data/ "
            + "(supervisor.runDir, logDir, dataDir) directories of their own");
      }
      prepare(d);
    }
  }

  public static void prepare(Path dir) throws IOException {
    TrustedPath.checkTheWayTo(dir);
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    Path real = Files.isSymbolicLink(dir) ? dir.toRealPath() : dir; // its way was checked, links followed
    requireOwnDirectory(dir, real);
    List<String> narrowed = new ArrayList<>();
    scan(real, real, 1, narrowed);
    if (!narrowed.isEmpty()) {
      log.warn("{}: narrowed to owner only what others could read: {} (delayq's files are its user's alone)",
          dir, String.join(", ", narrowed));
    }
  }

  private static void requireOwnDirectory(Path dir, Path real) throws IOException {
    PosixFileAttributes a = ThisUser.lstat(real);
    String named = dir.equals(real) ? dir.toString() : dir + " (" + real + ")";
    if (!a.isDirectory()) {
      throw new UntrustedPathException("refusing " + named + ": it is not a directory; move it away");
    }
    if (!ThisUser.owns(a)) {
      throw new UntrustedPathException("refusing " + named + ": it belongs to " + a.owner().getName() + " (mode "
          + ThisUser.mode(real) + "), not to " + ThisUser.name() + ", the user this supervisor runs as, so another "
          + "user could read or replace what delayq keeps there. Check what it holds, then remove it or give it to "
          + ThisUser.name() + " (chown -R " + ThisUser.name() + " " + real + "; chmod 700 " + real
          + "), or choose a home of your own (--home or DELAYQ_HOME)");
    }
    if (ThisUser.writableByOthers(real, a)) {
      throw new UntrustedPathException("refusing " + named + ": others than its owner " + a.owner().getName()
          + " can write it (mode " + ThisUser.mode(real) + "), so another user may have put files or links there. "
          + "Check what it holds, then chmod 700 " + real);
    }
  }

  /** Checks everything in {@code dir}; notes what it narrows, by its path relative to {@code top}. */
  private static void scan(Path top, Path dir, int depth, List<String> narrowed) throws IOException {
    narrow(top, dir, ThisUser.lstat(dir), narrowed);
    if (depth > DEPTH) {
      return;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        PosixFileAttributes a = ThisUser.lstat(entry);
        if (a.isSymbolicLink()) {
          throw new UntrustedPathException("refusing " + entry + ": it is a symbolic link (to "
              + Files.readSymbolicLink(entry) + "), and delayq follows none in its own directories; remove it");
        }
        if (!ThisUser.owns(a)) {
          throw new UntrustedPathException("refusing " + entry + ": it belongs to " + a.owner().getName()
              + ", not to " + ThisUser.name() + ", the user this supervisor runs as; check it, then remove it");
        }
        if (a.isDirectory()) {
          scan(top, entry, depth + 1, narrowed);
        } else if (a.isRegularFile() || a.isOther() && isSocket(entry)) {
          narrow(top, entry, a, narrowed);
        } else {
          throw new UntrustedPathException("refusing " + entry + ": it is neither a file, a directory nor a socket "
              + "(a FIFO or a device); remove it");
        }
      }
    }
  }

  private static boolean isSocket(Path entry) throws IOException {
    return (((Integer) Files.getAttribute(entry, "unix:mode", LinkOption.NOFOLLOW_LINKS)) & 0170000) == 0140000;
  }

  private static void narrow(Path top, Path path, PosixFileAttributes a, List<String> narrowed) throws IOException {
    Set<PosixFilePermission> mode = a.permissions();
    if (mode.stream().noneMatch(OTHERS::contains)) {
      return;
    }
    String was = ThisUser.mode(path);
    Set<PosixFilePermission> owner = EnumSet.noneOf(PosixFilePermission.class);
    owner.addAll(mode);
    owner.removeAll(OTHERS);
    Files.setPosixFilePermissions(path, owner);
    String name = path.equals(top) ? path.toString() : top.relativize(path).toString();
    narrowed.add(name + " " + was + " -> " + ThisUser.mode(path));
  }
}
