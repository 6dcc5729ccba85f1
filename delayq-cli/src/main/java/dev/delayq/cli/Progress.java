package dev.delayq.cli;

import java.io.PrintWriter;

/**
 * Progress of a long enqueue on stderr: a bar redrawn in place on a terminal, or one plain line
 * per batch otherwise (a log or a pipe gets no carriage returns).
 */
final class Progress {
  private static final int WIDTH = 30;

  private final PrintWriter err;
  private final boolean terminal;
  private final long totalBytes;
  private boolean drawn;

  /** {@code totalBytes} is the input's size, or -1 when unknown (stdin). */
  Progress(PrintWriter err, boolean terminal, long totalBytes) {
    this.err = err;
    this.terminal = terminal;
    this.totalBytes = totalBytes;
  }

  void update(long bytesRead, int lines, int enqueued, int duplicates, int rejected) {
    String counts = lines + " lines: " + enqueued + " enqueued, " + duplicates + " duplicate, "
        + rejected + " rejected";
    if (!terminal) {
      err.println("delayq: " + counts);
    } else if (totalBytes > 0) {
      int filled = (int) Math.min(WIDTH, WIDTH * bytesRead / totalBytes);
      int percent = (int) Math.min(100, 100 * bytesRead / totalBytes);
      err.print("\r[" + "#".repeat(filled) + " ".repeat(WIDTH - filled) + "] " + percent + "% " + counts);
      drawn = true;
    } else {
      err.print("\r" + counts);
      drawn = true;
    }
    err.flush();
  }

  /** Ends the bar's line, so what follows starts on a fresh one. */
  void done() {
    if (drawn) {
      err.println();
      err.flush();
    }
  }
}
