package dev.delayq.supervisor.host;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.OptionalLong;

/**
 * {@code run/supervisor.pid}, held under an OS file lock for the supervisor's whole life: one
 * supervisor per home. The lock, not the file's existence, decides: the OS drops it when its
 * holder dies however it dies, so a stale file left by a SIGKILLed supervisor is simply taken
 * over (a check that the PID in the file is alive, {@code kill -0}, races with a second start
 * and trusts a PID the OS has since given to another process).
 */
public final class PidFile implements AutoCloseable {

  /** Another live supervisor holds the lock. */
  public static final class HeldException extends Exception {
    private final OptionalLong pid;

    public HeldException(Path path, OptionalLong pid) {
      super("delayq supervisor is already running" + (pid.isPresent() ? " (pid " + pid.getAsLong() + ")" : "")
          + ": " + path + " is locked");
      this.pid = pid;
    }

    OptionalLong pid() {
      return pid;
    }
  }

  private final Path path;
  private final FileChannel channel;
  private final FileLock lock;
  private final OptionalLong previous;

  private PidFile(Path path, FileChannel channel, FileLock lock, OptionalLong previous) {
    this.path = path;
    this.channel = channel;
    this.lock = lock;
    this.previous = previous;
  }

  /**
   * Locks the file and writes this process's PID into it; throws when a live supervisor holds it.
   * The file is created 0600 and opened without following a link ({@link PrivateFile}).
   */
  public static PidFile acquire(Path path) throws IOException, HeldException {
    Files.createDirectories(path.toAbsolutePath().getParent(),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    for (int attempt = 0; ; attempt++) {
      FileChannel channel = PrivateFile.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
      if (lock == null) {
        channel.close();
        throw new HeldException(path, read(path));
      }
      if (!Files.exists(path) && attempt < 3) {
        // the holder removed the file between our open and our lock: lock the new one instead
        lock.release();
        channel.close();
        continue;
      }
      // read through the locked channel: closing any other descriptor of this file would
      // drop the POSIX lock (fcntl locks belong to the process and the file, not the fd)
      OptionalLong previous = read(channel);
      byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(pid), 0);
      channel.force(true);
      return new PidFile(path, channel, lock, previous);
    }
  }

  /** The PID a stale file named when it was taken over, if any. */
  public OptionalLong previous() {
    return previous;
  }

  /** The PID written in the file, if it holds one. Never call it in the holding process (see above). */
  static OptionalLong read(Path path) {
    try {
      String text = Files.readString(path, StandardCharsets.US_ASCII).trim();
      return text.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(text));
    } catch (NoSuchFileException e) {
      return OptionalLong.empty();
    } catch (IOException | NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  private static OptionalLong read(FileChannel channel) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(32);
    channel.read(buffer, 0);
    String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII).trim();
    try {
      return text.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(text));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /** Throws {@link HeldException} when a live supervisor holds the file right now. */
  public static void checkFree(Path path) throws IOException, HeldException {
    if (!Files.exists(path)) {
      return;
    }
    try (FileChannel channel = PrivateFile.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock()) {
      if (lock == null) {
        throw new HeldException(path, read(path));
      }
    } catch (NoSuchFileException e) {
      // removed meanwhile: free
    }
  }

  /** Removes the file, then lets go of the lock. */
  @Override
  public void close() throws IOException {
    try {
      Files.deleteIfExists(path);
    } finally {
      lock.release();
      channel.close();
    }
  }
}
