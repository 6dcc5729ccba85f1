package dev.delayq.supervisor;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * One child's log file, rotated by size. The supervisor copies each child's output here (see
 * {@link ChildLauncher}), so the file is closed and renamed by its only writer: nothing keeps
 * writing to a rotated file. Whole lines stay in one file wherever a write brings them whole.
 * Thread-safe: the output of a restarted child may arrive while its predecessor's last lines do.
 */
final class RotatingLog implements AutoCloseable {
  private final Path file;
  private final LogRotation rotation;
  private OutputStream out;
  private long size;

  RotatingLog(Path file, LogRotation rotation) {
    this.file = file;
    this.rotation = rotation;
  }

  Path file() {
    return file;
  }

  /** Appends {@code len} bytes; the part up to the last newline first, so lines are not split. */
  synchronized void write(byte[] bytes, int off, int len) throws IOException {
    int cut = 0;
    for (int i = off + len - 1; i >= off; i--) {
      if (bytes[i] == '\n') {
        cut = i - off + 1;
        break;
      }
    }
    if (cut > 0) {
      append(bytes, off, cut);
    }
    if (cut < len) {
      append(bytes, off + cut, len - cut);
    }
  }

  synchronized void writeLine(String line) throws IOException {
    byte[] b = (line + System.lineSeparator()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    write(b, 0, b.length);
  }

  private void append(byte[] bytes, int off, int len) throws IOException {
    if (out == null) {
      Files.createDirectories(file.getParent());
      out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      size = Files.size(file);
    }
    if (rotation.maxBytes() > 0 && size > 0 && size + len > rotation.maxBytes()) {
      rotate();
    }
    out.write(bytes, off, len);
    out.flush();
    size += len;
  }

  /** {@code f.log} becomes {@code f.log.1}, {@code .1} becomes {@code .2}, …; the oldest goes. */
  private void rotate() throws IOException {
    out.close();
    out = null;
    if (rotation.backups() == 0) {
      Files.deleteIfExists(file);
    } else {
      Files.deleteIfExists(backup(rotation.backups()));
      for (int k = rotation.backups() - 1; k >= 1; k--) {
        if (Files.exists(backup(k))) {
          Files.move(backup(k), backup(k + 1), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      Files.move(file, backup(1), StandardCopyOption.REPLACE_EXISTING);
    }
    out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE);
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
