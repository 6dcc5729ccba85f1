package dev.delayq.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * A worker's crash record: which delivery each of its consumers is running, kept in a small
 * memory-mapped file. A consumer writes its slot before a handler starts and clears it when the
 * handler returns: plain stores into the page cache, which outlive the process however it dies
 * (SIGKILL, an OOM kill, a JVM abort), so the supervisor on the same host reads exactly which jobs
 * were running and charges those only. The slot's length is written last, with release semantics,
 * so a reader never sees half an element.
 *
 * <p>Layout, little-endian: a header (magic, pid, slots), then one {@link #SLOT_BYTES} slot per
 * consumer: an int length (0 = nothing running) and the delivery element in UTF-8.
 */
public final class RunningFile implements AutoCloseable {
  private static final int MAGIC = 0x44515246; // "DQRF"
  private static final int HEADER_BYTES = 16;
  static final int SLOT_BYTES = 1024;
  private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private final Path path;
  private final MappedByteBuffer map;
  private final int slots;

  private RunningFile(Path path, MappedByteBuffer map, int slots) {
    this.path = path;
    this.map = map;
    this.slots = slots;
  }

  /** The record of worker {@code child} (process {@code pid}) in the supervisor's run directory. */
  public static Path pathFor(Path runDir, String child, long pid) {
    return runDir.resolve(child + "." + pid + ".running");
  }

  /** Creates (or truncates) the record with {@code slots} empty slots. */
  public static RunningFile create(Path path, long pid, int slots) {
    try {
      Files.createDirectories(path.getParent());
      try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, HEADER_BYTES + (long) slots * SLOT_BYTES);
        map.order(ByteOrder.LITTLE_ENDIAN);
        map.putInt(4, (int) pid);
        map.putInt(8, slots);
        INT.setRelease(map, 0, MAGIC);
        return new RunningFile(path, map, slots);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the crash record " + path, e);
    }
  }

  /** Slot {@code slot} (0-based) is running {@code element}; called by that consumer only. */
  public void running(int slot, String element) {
    byte[] bytes = element.getBytes(StandardCharsets.UTF_8);
    int at = offset(slot);
    if (bytes.length > SLOT_BYTES - 4) {
      throw new IllegalArgumentException("delivery " + element + " is too long for the crash record");
    }
    map.put(at + 4, bytes);
    INT.setRelease(map, at, bytes.length);
  }

  /** Slot {@code slot} runs nothing. */
  public void idle(int slot) {
    INT.setRelease(map, offset(slot), 0);
  }

  private int offset(int slot) {
    if (slot < 0 || slot >= slots) {
      throw new IndexOutOfBoundsException("slot " + slot + " of " + slots);
    }
    return HEADER_BYTES + slot * SLOT_BYTES;
  }

  /** Removes the file (the worker exits cleanly, or its record has been read). */
  public void delete() {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // a leftover file is harmless: it names a process that no longer exists
    }
  }

  @Override
  public void close() {
    delete();
  }

  /**
   * What a record says: slot (0-based) -> the element running there, for the slots running
   * something. Empty when there is no record (the worker never wrote one) or it is not one.
   */
  public static Map<Integer, String> read(Path path) {
    byte[] all;
    try {
      all = Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      return Map.of();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the crash record " + path, e);
    }
    ByteBuffer b = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
    if (all.length < HEADER_BYTES || b.getInt(0) != MAGIC) {
      return Map.of();
    }
    int slots = Math.min(b.getInt(8), (all.length - HEADER_BYTES) / SLOT_BYTES);
    Map<Integer, String> running = new HashMap<>();
    for (int i = 0; i < slots; i++) {
      int at = HEADER_BYTES + i * SLOT_BYTES;
      int length = b.getInt(at);
      if (length > 0 && length <= SLOT_BYTES - 4) {
        running.put(i, new String(all, at + 4, length, StandardCharsets.UTF_8));
      }
    }
    return running;
  }

  /** True when a record exists at {@code path}. */
  public static boolean exists(Path path) {
    return Files.isRegularFile(path);
  }
}
