package dev.delayq.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

/**
 * A secret kept in a file of {@code run/} that only its owner can read (mode 0600): the
 * embedded Redis's password, the dashboard's token. Written to a 0600 temporary file and
 * renamed into place, so no moment exists when another user could read it.
 */
public final class SecretFile {
  private static final SecureRandom RANDOM = new SecureRandom();

  private SecretFile() {}

  /** 32 random bytes in URL-safe base64: no character needs escaping in a URL or a header. */
  public static String generate() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** Writes {@code secret} to {@code file} (mode 0600), replacing what was there. */
  public static void write(Path file, String secret) {
    try {
      makePrivateDir(file.getParent());
      Path tmp = Files.createTempFile(file.getParent(), "." + file.getFileName(), ".part",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      try {
        Files.writeString(tmp, secret + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /**
   * The secret of {@code file} when it is a regular file only its owner can read and write
   * (mode 0600 or stricter); empty when it is missing or anyone else could have read it.
   */
  public static Optional<String> readPrivate(Path file) {
    try {
      PosixFileAttributes a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (!a.isRegularFile() || !a.owner().getName().equals(System.getProperty("user.name"))
          || a.permissions().stream().anyMatch(p -> p != PosixFilePermission.OWNER_READ
              && p != PosixFilePermission.OWNER_WRITE)) {
        return Optional.empty();
      }
      String secret = Files.readString(file, StandardCharsets.UTF_8).trim();
      return secret.isEmpty() ? Optional.empty() : Optional.of(secret);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The secret of {@code file} as it is; a clear error naming the file when it cannot be read. */
  public static String read(Path file) {
    try {
      String secret = Files.readString(file, StandardCharsets.UTF_8).trim();
      if (secret.isEmpty()) {
        throw new ConfigException(file + " is empty");
      }
      return secret;
    } catch (IOException e) {
      throw new ConfigException("cannot read " + file + " (" + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
    }
  }

  /**
   * Creates {@code dir} with mode 0700, or narrows it to 0700; refuses (an IOException naming
   * it) one that another user owns: a secret written there would be theirs to read or replace.
   */
  public static void makePrivateDir(Path dir) throws IOException {
    Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class);
    if (!a.owner().getName().equals(System.getProperty("user.name"))) {
      throw new IOException("refusing to keep a secret in " + dir + ": it belongs to " + a.owner().getName()
          + ", not to " + System.getProperty("user.name"));
    }
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
  }
}
