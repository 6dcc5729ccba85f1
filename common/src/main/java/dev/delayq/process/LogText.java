package dev.delayq.process;

/**
 * Makes text that came from a job record (type, id, error text: anything another Redis client
 * may have written) safe to put in a log line or on a terminal: control characters are
 * escaped, so a CR, LF or ESC cannot end the line, forge a new one or recolour the terminal.
 */
public final class LogText {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private LogText() {}

  /**
   * {@code value} with every control character written as an escape: {@code \n}, {@code \r},
   * {@code \t}, else {@code \}{@code u001b} style. Escaped are C0 controls, DEL, C1 controls, the
   * Unicode line and paragraph separators and the bidirectional overrides (which reorder what a
   * terminal shows). Null gives "null"; text without such characters is returned as it is.
   */
  public static String escape(Object value) {
    String s = String.valueOf(value);
    int first = firstUnsafe(s);
    if (first < 0) {
      return s;
    }
    StringBuilder out = new StringBuilder(s.length() + 16).append(s, 0, first);
    for (int i = first; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!unsafe(c)) {
        out.append(c);
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c == '\r') {
        out.append("\\r");
      } else if (c == '\t') {
        out.append("\\t");
      } else {
        out.append("\\u").append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf])
            .append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }

  private static int firstUnsafe(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (unsafe(s.charAt(i))) {
        return i;
      }
    }
    return -1;
  }

  private static boolean unsafe(char c) {
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029'
        || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069');
  }
}
