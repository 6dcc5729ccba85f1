package dev.delayq.supervisor.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Whether another user could swap a path under this process: every directory on the way to it,
 * from {@code /} down, must belong to root or to this user and be writable by no one else, unless
 * it is sticky (as {@code /tmp} is: there only an entry's owner can rename or remove it, and the
 * entry itself must then be root's or this user's). Group write counts as no one else's when the
 * group is the owner's private one ({@link ThisUser#writableByOthers}). A symbolic link on the way
 * is followed and its target's path checked the same way; the link itself cannot be swapped,
 * since the directory it lies in was checked. The walk stops at the first name that does not exist
 * yet: what the supervisor creates there is its own.
 */
final class TrustedPath {
  private static final int MAX_LINKS = 40;
  private static final int STICKY = 01000;

  private TrustedPath() {}

  /** Throws, naming the culprit, when {@code path} or some directory on the way to it is not safe. */
  static void check(Path path) throws IOException {
    check(path, true);
  }

  /**
   * As {@link #check(Path)}, but {@code path} itself is left to the caller (who holds it to a
   * stricter rule); a link at its name is still followed and its target's way checked.
   */
  static void checkTheWayTo(Path path) throws IOException {
    check(path, false);
  }

  private static void check(Path path, boolean itself) throws IOException {
    Path absolute = path.toAbsolutePath().normalize();
    Deque<String> names = new ArrayDeque<>();
    absolute.forEach(name -> names.addLast(name.toString()));
    Path root = absolute.getRoot();
    Path at = root;
    requireSafe(path, at, ThisUser.lstat(at));
    int links = 0;
    while (!names.isEmpty()) {
      String name = names.pollFirst();
      if (name.isEmpty() || name.equals(".")) {
        continue;
      }
      if (name.equals("..")) {
        at = at.getParent() == null ? at : at.getParent();
        continue;
      }
      Path next = at.resolve(name);
      PosixFileAttributes a;
      try {
        a = ThisUser.lstat(next);
      } catch (NoSuchFileException e) {
        return;
      }
      if (a.isSymbolicLink()) {
        if (++links > MAX_LINKS) {
          throw new UntrustedPathException("refusing " + path + ": too many symbolic links on the way to it");
        }
        Path target = Files.readSymbolicLink(next);
        Deque<String> rest = new ArrayDeque<>();
        target.forEach(n -> rest.addLast(n.toString()));
        while (!rest.isEmpty()) {
          names.addFirst(rest.pollLast());
        }
        if (target.isAbsolute()) {
          at = root;
        }
        continue;
      }
      if (itself || !names.isEmpty()) {
        requireSafe(path, next, a);
      }
      at = next;
    }
  }

  private static void requireSafe(Path checked, Path dir, PosixFileAttributes a) throws IOException {
    boolean ownerOk = ThisUser.owns(a) || a.owner().getName().equals("root");
    boolean unsafe = !ownerOk
        || (a.isDirectory() && ThisUser.writableByOthers(dir, a) && (ThisUser.modeBits(dir) & STICKY) == 0);
    if (unsafe) {
      String what = dir.equals(checked.toAbsolutePath().normalize()) ? dir.toString()
          : dir + ", on the way to " + checked + ",";
      String owners = ThisUser.name().equals("root") ? "root" : "root or " + ThisUser.name();
      String why = !ownerOk ? "belongs to " + a.owner().getName() + " (mode " + ThisUser.mode(dir) + "), not to "
          + owners : "can be written by others than its owner " + a.owner().getName() + " (mode "
          + ThisUser.mode(dir) + ")";
      throw new UntrustedPathException("refusing " + checked + ": " + what + " " + why
          + ", so another user could replace what lies beneath it. Use a home on a path only " + owners
          + " can write (--home or DELAYQ_HOME), or " + (!ownerOk ? "give " + dir + " to " + ThisUser.name()
          + " (chown " + ThisUser.name() + " " + dir + ")" : "let only its owner write it (chmod go-w " + dir + ")"));
    }
  }
}
