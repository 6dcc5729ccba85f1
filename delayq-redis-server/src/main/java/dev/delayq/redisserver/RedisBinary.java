package dev.delayq.redisserver;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Set;

/**
 * Finds a {@code redis-server} to run: the one on PATH (when neither it nor its directory can
 * be written by another user), else the binary the embedded-redis library ships, extracted into
 * a directory only this user can write. Never a fixed path in a shared directory such as /tmp,
 * where another user could plant a program of their own first.
 */
public final class RedisBinary {
  private static final Set<PosixFilePermission> SHARED_WRITE =
      Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
  private static Path extractedForThisJvm;

  private RedisBinary() {}

  /** PATH, else the shipped binary extracted into a private temporary directory of this JVM. */
  public static Path locate() {
    Path found = onPath();
    return found != null ? found : shipped();
  }

  /** PATH, else the shipped binary extracted into {@code privateDir} (see {@link #shipped(Path)}). */
  public static Path locate(Path privateDir) {
    Path found = onPath();
    return found != null ? found : shipped(privateDir);
  }

  /** The shipped binary, extracted once per JVM into a fresh 0700 temporary directory. */
  public static synchronized Path shipped() {
    if (extractedForThisJvm == null) {
      try {
        Path dir = Files.createTempDirectory("delayq-redis-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        dir.toFile().deleteOnExit();
        extractedForThisJvm = shipped(dir);
        extractedForThisJvm.toFile().deleteOnExit();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot make a private directory for redis-server", e);
      }
    }
    return extractedForThisJvm;
  }

  /**
   * The redis-server embedded-redis ships for this OS, written afresh into {@code privateDir}
   * (0700, created if missing) and renamed over whatever lies at its name, so a file planted
   * there is replaced, never run. Refuses a directory that another user owns.
   */
  public static Path shipped(Path privateDir) {
    String resource = shippedResource();
    try {
      Files.createDirectories(privateDir,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      requirePrivate(privateDir);
      Path target = privateDir.resolve(resource);
      try (InputStream in = RedisBinary.class.getResourceAsStream("/" + resource)) {
        if (in == null) {
          throw new IllegalStateException("no redis-server on PATH and " + resource
              + " is not on the classpath (embedded-redis missing)");
        }
        Path tmp = Files.createTempFile(privateDir, "redis-server", ".part",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract " + resource + " into " + privateDir, e);
    }
  }

  /** Refuses {@code dir} unless this user owns it, then narrows it to 0700. */
  private static void requirePrivate(Path dir) throws IOException {
    PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    String me = System.getProperty("user.name");
    if (!a.isDirectory() || !a.owner().getName().equals(me)) {
      throw new IllegalStateException("refusing to run redis-server from " + dir + ": it must be a directory "
          + "owned by " + me + " (it is " + (a.isDirectory() ? "" : "not a directory, ") + "owned by "
          + a.owner().getName() + ")");
    }
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
  }

  /** redis-server on PATH, skipping one that another user could have replaced. */
  private static Path onPath() {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, "redis-server");
      if (!dir.isEmpty() && Files.isExecutable(candidate) && trusted(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /** Owned by root or this user, and neither the file nor its directory writable by others. */
  static boolean trusted(Path file) {
    try {
      Path real = file.toRealPath();
      for (Path p : new Path[] {real, real.getParent()}) {
        PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class);
        String owner = a.owner().getName();
        if (!(owner.equals("root") || owner.equals(System.getProperty("user.name")))
            || a.permissions().stream().anyMatch(SHARED_WRITE::contains)) {
          return false;
        }
      }
      return true;
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  private static String shippedResource() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    boolean arm = arch.contains("aarch64") || arch.contains("arm");
    if (os.contains("mac")) {
      return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
    }
    if (os.contains("linux")) {
      return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
    }
    throw new IllegalStateException("no shipped redis-server for " + os + "/" + arch
        + ": install redis-server on PATH");
  }
}
