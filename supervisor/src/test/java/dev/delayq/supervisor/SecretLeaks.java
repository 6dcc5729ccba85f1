package dev.delayq.supervisor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Where a secret shows up: files under a directory, and the command lines of every process. */
final class SecretLeaks {
  private SecretLeaks() {}

  /** The files under {@code dirs} (recursively) whose bytes contain {@code needle}. */
  static List<String> inFiles(String needle, Path... dirs) {
    byte[] n = needle.getBytes(StandardCharsets.UTF_8);
    List<String> found = new ArrayList<>();
    for (Path dir : dirs) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.filter(Files::isRegularFile).forEach(f -> {
          if (contains(read(f), n)) {
            found.add(f.toString());
          }
        });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return found;
  }

  /** {@code /proc/<pid>/cmdline} of every process on this machine that contains {@code needle}. */
  static List<String> inCommandLines(String needle) {
    byte[] n = needle.getBytes(StandardCharsets.UTF_8);
    List<String> found = new ArrayList<>();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      procs.filter(p -> p.getFileName().toString().matches("\\d+")).forEach(p -> {
        byte[] cmdline = read(p.resolve("cmdline"));
        if (contains(cmdline, n)) {
          found.add(p.getFileName() + ": " + new String(cmdline, StandardCharsets.UTF_8).replace('\0', ' '));
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found;
  }

  /** The raw {@code /proc/<pid>/environ} of a process. */
  static String environment(long pid) {
    return new String(read(Path.of("/proc", Long.toString(pid), "environ")), StandardCharsets.UTF_8);
  }

  private static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      return new byte[0]; // gone, or not ours to read
    }
  }

  private static boolean contains(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
