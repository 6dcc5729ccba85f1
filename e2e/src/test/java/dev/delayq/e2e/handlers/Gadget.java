package dev.delayq.e2e.handlers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Stands for a deserialization gadget on the worker's classpath: should anything ever load and
 * initialise it (a payload naming it with "@class" under default typing), its static initialiser
 * leaves {@link #marker} for the test to find.
 */
public final class Gadget {
  static {
    try {
      Files.writeString(marker(ProcessHandle.current().pid()), "loaded");
    } catch (IOException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private Gadget() {}

  /** The file a worker process of {@code pid} leaves once this class was initialised in it. */
  public static Path marker(long pid) {
    return Path.of(System.getProperty("java.io.tmpdir"), "delayq-gadget-loaded-" + pid);
  }
}
