package dev.delayq.supervisor.host;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * One child's log file, rotated by size. The supervisor copies each child's output here (see
 * the supervisor's launcher), so the file is closed and renamed by its only writer: nothing keeps
 * writing to a rotated file. Whole lines stay in one file wherever a write brings them whole.
 * Thread-safe: the output of a restarted child may arrive while its predecessor's last lines do.
 */
public final class RotatingLog implements AutoCloseable {
  private final Path file;
  private final LogRotation rotation;
  private OutputStream out;
  private long size;

  public RotatingLog(Path file, LogRotation rotation) {
    this.file = file;
    this.rotation = rotation;
  }

  public Path file() {
    return file;
  }

  /**
   * Appends {@code len} bytes, whole lines together, so lines are not split: as many as fit in
   * what is left of the file go in one write, and the file rotates before a line that would pass
   * the limit (a burst read from the pipe in one chunk is spread over files like separate
   * writes). An unfinished last line goes on its own, to be finished by the next write.
   */
  public synchronized void write(byte[] bytes, int off, int len) throws IOException {
    open();
    int end = off + len;
    int group = off; // the start of the whole lines gathered for one append
    int at = off;
    while (at < end) {
      int next = at;
      while (next < end && bytes[next] != '\n') {
        next++;
      }
      if (next == end) {
        break;
      }
      next++;
      if (at > group && passesLimit(next - group)) {
        append(bytes, group, at - group);
        group = at;
      }
      at = next;
    }
    if (at > group) {
      append(bytes, group, at - group);
    }
    if (at < end) {
      append(bytes, at, end - at);
    }
  }

  private boolean passesLimit(long more) {
    return rotation.maxBytes() > 0 && size + more > rotation.maxBytes();
  }

  public synchronized void writeLine(String line) throws IOException {
    byte[] b = (line + System.lineSeparator()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    write(b, 0, b.length);
  }

  /**
   * Opens the file to append to, counting what it already holds towards the limit: created 0600,
   * never through a link planted in its place ({@link PrivateFile}).
   */
  private void open() throws IOException {
    if (out == null) {
      Files.createDirectories(file.getParent(),
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      FileChannel channel = PrivateFile.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND);
      size = channel.size();
      out = Channels.newOutputStream(channel);
    }
  }

  private void append(byte[] bytes, int off, int len) throws IOException {
    if (size > 0 && passesLimit(len)) {
      rotate();
    }
    out.write(bytes, off, len);
    out.flush();
    size += len;
  }

  /**
   * {@code f.log} becomes {@code f.log.1}, {@code .1} becomes {@code .2}, …; the oldest goes. A
   * rename moves a link itself, never what it points to.
   */
  private void rotate() throws IOException {
    out.close();
    out = null;
    if (rotation.backups() == 0) {
      Files.deleteIfExists(file);
    } else {
      Files.deleteIfExists(backup(rotation.backups()));
      for (int k = rotation.backups() - 1; k >= 1; k--) {
        if (Files.exists(backup(k), LinkOption.NOFOLLOW_LINKS)) {
          Files.move(backup(k), backup(k + 1), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      Files.move(file, backup(1), StandardCopyOption.REPLACE_EXISTING);
    }
    // the name was just moved away or deleted: a file that appeared there since is not ours to write
    out = Channels.newOutputStream(PrivateFile.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
    size = 0;
  }

  Path backup(int k) {
    return file.resolveSibling(file.getFileName() + "." + k);
  }

  @Override
  public synchronized void close() throws IOException {
    if (out != null) {
      out.close();
      out = null;
    }
  }
}
