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
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A worker's crash record: which delivery each of its consumers is running, and which it
 * finished last, kept in a small memory-mapped file. A consumer writes its slot before a handler
 * starts and clears it when the handler returns; when the handler returned done, it first notes
 * the delivery as finished. Those are plain stores into the page cache, which outlive the process
 * however it dies (SIGKILL, an OOM kill, a JVM abort), so the supervisor on the same host reads
 * exactly which jobs were running, and charges those only, and which had finished, whose
 * acknowledgement may not have left the process yet (the ack sender sends it a moment later):
 * those are acknowledged instead of run again. Each cell's length is written last, with release
 * semantics, so a reader never sees half an element.
 *
 * <p>Layout, little-endian: a header (magic, pid, slots, cells per slot), then per consumer one {@link #SLOT_BYTES}
 * cell for the delivery it runs and {@link #FINISHED_KEPT} cells, a ring, for the last ones it
 * finished; a cell is an int length (0 = empty) and the delivery element in UTF-8.
 */
public final class RunningFile implements AutoCloseable {
  private static final int MAGIC = 0x44515233; // "DQR3": cells per slot in the header
  /** A record of a worker before DQR3: 1 + 4 cells per slot, not in the header. */
  private static final int MAGIC_FIVE_CELLS = 0x44515232;
  private static final int HEADER_BYTES = 16;
  static final int SLOT_BYTES = 1024;
  /**
   * Finished deliveries kept per consumer. A consumer never has more acknowledgements unsent
   * than this (it waits for its ack sender before it runs a job that would push the oldest
   * unsent one out of the ring: {@code Consumer}), so a crash never forgets a job that finished.
   * The sender sends what gathered every round trip, so that wait comes only when it lags 32
   * jobs of one consumer (a starved thread, Redis not answering), whatever the prefetch.
   */
  public static final int FINISHED_KEPT = 32;
  private static final int CELLS = 1 + FINISHED_KEPT;
  private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private final Path path;
  private final MappedByteBuffer map;
  private final int slots;
  /** Per slot, how many finished deliveries it noted: the ring's next cell. Its consumer's only. */
  private final int[] finishedCount;
  /** Per slot, what each cell of its ring holds (null: nothing). Its consumer's only. */
  private final String[][] finishedCells;

  private RunningFile(Path path, MappedByteBuffer map, int slots) {
    this.path = path;
    this.map = map;
    this.slots = slots;
    this.finishedCount = new int[slots];
    this.finishedCells = new String[slots][FINISHED_KEPT];
  }

  /** What one consumer's slot says: the delivery it runs (null: none), the ones it finished last. */
  public record Slot(String running, List<String> finished) {}

  /** The record of worker {@code child} (process {@code pid}) in the supervisor's run directory. */
  public static Path pathFor(Path runDir, String child, long pid) {
    return runDir.resolve(child + "." + pid + ".running");
  }

  /** Creates (or truncates) the record with {@code slots} empty slots. */
  public static RunningFile create(Path path, long pid, int slots) {
    try {
      Files.createDirectories(path.getParent());
      // 0600 and never through a link: it names the jobs running, in the supervisor's private run/
      try (FileChannel ch = FileChannel.open(path, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS),
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
        MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0,
            HEADER_BYTES + (long) slots * CELLS * SLOT_BYTES);
        map.order(ByteOrder.LITTLE_ENDIAN);
        map.putInt(4, (int) pid);
        map.putInt(8, slots);
        map.putInt(12, CELLS);
        INT.setRelease(map, 0, MAGIC);
        return new RunningFile(path, map, slots);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the crash record " + path, e);
    }
  }

  /** Slot {@code slot} (0-based) is running {@code element}; called by that consumer only. */
  public void running(int slot, String element) {
    write(offset(slot), element);
  }

  /**
   * Slot {@code slot}'s handler finished {@code element} (it returned done); called by that
   * consumer before {@link #idle}, so a crash between the two still finds it finished.
   */
  public void finished(int slot, String element) {
    finished(slot, element, kept -> false);
  }

  /**
   * As {@link #finished(int, String)}, into the next cell of the ring whose delivery is not
   * {@code keep}: a consumer keeps the ones whose acknowledgement is not sent yet, which may be
   * older than ones sent since (on a queue of several shards, one shard's acknowledgements can be
   * held back while the others' are sent). When every cell is kept, the next one in ring order.
   */
  public void finished(int slot, String element, java.util.function.Predicate<String> keep) {
    int at = finishedCount[slot] % FINISHED_KEPT;
    for (int i = 0; i < FINISHED_KEPT; i++) {
      String held = finishedCells[slot][(at + i) % FINISHED_KEPT];
      if (held == null || !keep.test(held)) {
        at = (at + i) % FINISHED_KEPT;
        break;
      }
    }
    finishedCount[slot] = at + 1;
    finishedCells[slot][at] = element;
    write(offset(slot) + (1 + at) * SLOT_BYTES, element);
  }

  private void write(int at, String element) {
    byte[] bytes = element.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > SLOT_BYTES - 4) {
      throw new IllegalArgumentException("delivery " + element + " is too long for the crash record");
    }
    INT.setRelease(map, at, 0); // a reader never pairs the new bytes with the old length
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
    return HEADER_BYTES + slot * CELLS * SLOT_BYTES;
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
    Map<Integer, String> running = new HashMap<>();
    readSlots(path).forEach((slot, s) -> {
      if (s.running() != null) {
        running.put(slot, s.running());
      }
    });
    return running;
  }

  /**
   * What a record says per slot (0-based): what runs there and what finished last, for the slots
   * that hold anything. Empty when there is no record or it is not one.
   */
  public static Map<Integer, Slot> readSlots(Path path) {
    byte[] all;
    try {
      all = Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      return Map.of();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the crash record " + path, e);
    }
    ByteBuffer b = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
    int cells = all.length < HEADER_BYTES ? 0
        : b.getInt(0) == MAGIC ? b.getInt(12) : b.getInt(0) == MAGIC_FIVE_CELLS ? 5 : 0;
    if (cells < 1) {
      return Map.of();
    }
    int slots = Math.min(b.getInt(8), (all.length - HEADER_BYTES) / (cells * SLOT_BYTES));
    Map<Integer, Slot> out = new HashMap<>();
    for (int i = 0; i < slots; i++) {
      int at = HEADER_BYTES + i * cells * SLOT_BYTES;
      String running = cell(all, b, at);
      List<String> finished = new ArrayList<>(cells - 1);
      for (int c = 1; c < cells; c++) {
        String f = cell(all, b, at + c * SLOT_BYTES);
        if (f != null) {
          finished.add(f);
        }
      }
      if (running != null || !finished.isEmpty()) {
        out.put(i, new Slot(running, finished));
      }
    }
    return out;
  }

  private static String cell(byte[] all, ByteBuffer b, int at) {
    int length = b.getInt(at);
    return length > 0 && length <= SLOT_BYTES - 4 ? new String(all, at + 4, length, StandardCharsets.UTF_8) : null;
  }

  /** True when a record exists at {@code path}. */
  public static boolean exists(Path path) {
    return Files.isRegularFile(path);
  }
}
