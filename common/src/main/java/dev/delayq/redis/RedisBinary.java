package dev.delayq.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * Finds a {@code redis-server} to run: the one on PATH, else the binary the embedded-redis
 * library ships (extracted once into the temp directory).
 */
public final class RedisBinary {
  private RedisBinary() {}

  public static Path locate() {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        Path candidate = Path.of(dir, "redis-server");
        if (Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    return shipped();
  }

  /** The redis-server embedded-redis ships for this OS, extracted to the temp directory. */
  public static Path shipped() {
    String resource = shippedResource();
    Path target = Path.of(System.getProperty("java.io.tmpdir"), "delayq-" + resource);
    if (Files.isExecutable(target)) {
      return target;
    }
    try (InputStream in = RedisBinary.class.getResourceAsStream("/" + resource)) {
      if (in == null) {
        throw new IllegalStateException("no redis-server on PATH and " + resource
            + " is not on the classpath (embedded-redis missing)");
      }
      Path tmp = Files.createTempFile(target.getParent(), "delayq-redis", ".part");
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract " + resource, e);
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
