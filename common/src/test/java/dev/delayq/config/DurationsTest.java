package dev.delayq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Durations}: the duration syntax of conf/delayq.yml. */
class DurationsTest {

  @ParameterizedTest
  @CsvSource({"250ms, 250", "30s, 30000", "5m, 300000", "2h, 7200000", "1d, 86400000", "0s, 0",
      "' 30 s ', 30000", "30S, 30000", "PT1M30S, 90000", "pt0.5s, 500", "P1D, 86400000"})
  void operatorDurationsParse(String text, long millis) {
    assertEquals(Duration.ofMillis(millis), Durations.parse(text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"soon", "", "30", "-5s", "1.5s", "5 minutes", "PTxS", "s"})
  void textThatIsNotADurationIsRefusedNamingIt(String text) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(text));
    assertTrue(e.getMessage().contains("'" + text + "' is not a duration"), e.getMessage());
    assertTrue(e.getMessage().contains("250ms, 30s, 5m, 2h or 1d"), e.getMessage());
  }

  @Test
  void nullIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> Durations.parse(null));
  }

  @ParameterizedTest
  @ValueSource(strings = {"99999999999999999999s", "9999999999999999d", "9223372036854775807h"})
  void durationTooLargeIsRefusedNamingIt(String text) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(text));
    assertTrue(e.getMessage().contains("'" + text + "' is too large a duration"), e.getMessage());
  }

  @ParameterizedTest
  @CsvSource({"1500, 1500ms", "30000, 30s", "90000, 90s", "300000, 5m", "7200000, 2h", "86400000, 1d",
      "0, 0s", "1, 1ms"})
  void formatGivesTheShortestExactForm(long millis, String text) {
    assertEquals(text, Durations.format(Duration.ofMillis(millis)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"250ms", "30s", "5m", "2h", "1d", "1500ms", "90s"})
  void formatThenParseIsTheSameDuration(String text) {
    assertEquals(text, Durations.format(Durations.parse(text)));
  }
}
