package dev.delayq.cli;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The lines of a JSON-lines input, read as bytes one line at a time, so that a file is never
 * held whole and one bad line costs only itself: a line that is not UTF-8 is answered with the
 * byte where it stops being so, and a line longer than {@code maxLineBytes} is skipped to its end
 * without being held (a reader of chars would fail the whole input on the first bad byte, with
 * Java's bare "Input length = 1").
 */
final class InputLines implements Closeable {
  /** One line: its text, or why it has none; {@code bytes} counts it with its line end. */
  sealed interface Line {
    int no();

    long bytes();
  }

  record Text(int no, long bytes, String text) implements Line {}

  record Bad(int no, long bytes, String reason) implements Line {}

  private final InputStream in;
  private final int maxLineBytes;
  private final byte[] buffer = new byte[64 * 1024];
  private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
  private int start;
  private int end;
  private int lineNo;
  private byte[] line = new byte[256];

  InputLines(InputStream in, int maxLineBytes) {
    this.in = in;
    this.maxLineBytes = maxLineBytes;
  }

  /** The next line, or null at the end of the input. */
  Line next() throws IOException {
    int length = 0;
    long bytes = 0;
    boolean tooLong = false;
    while (true) {
      if (start == end) {
        end = in.read(buffer);
        start = 0;
        if (end <= 0) {
          end = 0;
          if (bytes == 0) {
            return null;
          }
          break; // a last line without a line end
        }
      }
      int newline = start;
      while (newline < end && buffer[newline] != '\n') {
        newline++;
      }
      int piece = newline - start;
      bytes += piece;
      if (!tooLong && length + piece > maxLineBytes) {
        tooLong = true;
      }
      if (!tooLong) {
        append(length, piece);
        length += piece;
      }
      start = newline;
      if (newline < end) {
        start++;
        bytes++;
        break;
      }
    }
    lineNo++;
    if (tooLong) {
      return new Bad(lineNo, bytes, "line is longer than " + maxLineBytes
          + " bytes (twice queue.maxPayloadBytes, plus 64 KiB): its payload could not fit");
    }
    if (length > 0 && line[length - 1] == '\r') {
      length--;
    }
    return decode(bytes, length);
  }

  private void append(int length, int piece) {
    if (length + piece > line.length) {
      line = Arrays.copyOf(line, Math.max(length + piece, Math.min(maxLineBytes, 2 * line.length)));
    }
    System.arraycopy(buffer, start, line, length, piece);
  }

  private Line decode(long bytes, int length) {
    ByteBuffer input = ByteBuffer.wrap(line, 0, length);
    CharBuffer text = CharBuffer.allocate(length);
    utf8.reset();
    CoderResult result = utf8.decode(input, text, true);
    if (result.isError()) {
      return new Bad(lineNo, bytes, "not valid UTF-8 at byte offset " + input.position()
          + " of the line (byte 0x" + String.format("%02x", line[input.position()] & 0xff) + ")");
    }
    utf8.flush(text);
    text.flip();
    return new Text(lineNo, bytes, text.toString());
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
