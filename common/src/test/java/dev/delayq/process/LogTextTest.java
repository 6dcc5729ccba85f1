package dev.delayq.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class LogTextTest {

  @Test
  void forgedLogLineAndAnsiEscapesStayOnOneEscapedLine() {
    String hostile = "order_close\n[INFO] supervisor stopped\r\u001b[2J\u001b[31mred";
    String safe = LogText.escape(hostile);
    assertEquals("order_close\\n[INFO] supervisor stopped\\r\\u001b[2J\\u001b[31mred", safe);
    assertFalse(safe.chars().anyMatch(c -> c < 0x20), "no control character is left");
  }

  @Test
  void plainTextIsReturnedUnchanged() {
    String plain = "order_close: closing unpaid order 1001 — ünïcode, \"quotes\" and back\\slash";
    assertSame(plain, LogText.escape(plain));
  }

  @Test
  void c1ControlsDelLineSeparatorsAndBidiOverridesAreEscaped() {
    assertEquals("a\\u007fb\\u009bc\\u2028d\\u2029e\\u202ef\\u2066g\\tz",
        LogText.escape("a\u007fb\u009bc\u2028d\u2029e\u202ef\u2066g\tz"));
  }

  @Test
  void nullAndNonStringsAreWrittenAsText() {
    assertEquals("null", LogText.escape(null));
    assertEquals("42", LogText.escape(42));
  }
}
