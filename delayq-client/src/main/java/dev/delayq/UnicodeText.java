package dev.delayq;

/**
 * Text that UTF-8 can hold: a lone surrogate (half of a pair, which Java strings allow) has no
 * UTF-8 form, and the encoder under Redis's client would store it as '?' without a word. Such
 * text is refused as bad input, naming where the surrogate is.
 */
final class UnicodeText {
  private UnicodeText() {}

  /** Refuses {@code text} when it holds a lone surrogate; {@code what} names it ("payload"). */
  static void check(String what, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isSurrogate(c)) {
        if (!pairAt(text, i)) {
          throw loneSurrogate(what, text, i);
        }
        i++;
      }
    }
  }

  /** True when a high surrogate at {@code i} is followed by its low half. */
  static boolean pairAt(String text, int i) {
    return Character.isHighSurrogate(text.charAt(i)) && i + 1 < text.length()
        && Character.isLowSurrogate(text.charAt(i + 1));
  }

  static IllegalArgumentException loneSurrogate(String what, String text, int i) {
    return new IllegalArgumentException(what + " holds a lone surrogate, U+"
        + Integer.toHexString(text.charAt(i)).toUpperCase() + ", at index " + i
        + ": it is not Unicode text and has no UTF-8 form (write the whole pair, or escape the character)");
  }
}
