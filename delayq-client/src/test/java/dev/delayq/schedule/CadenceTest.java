package dev.delayq.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When schedules tick: cron in a zone (through cron-utils and java.time), and fixed intervals. */
class CadenceTest {
  private static List<Instant> ticks(Cadence c, String from, int n) {
    List<Instant> out = new ArrayList<>();
    Instant t = Instant.parse(from);
    for (int i = 0; i < n; i++) {
      t = c.next(t).orElseThrow();
      out.add(t);
    }
    return out;
  }

  @Test
  void fiveFieldCronTicksEveryFiveMinutesStrictlyAfter() {
    Cadence c = new Cadence.Cron("*/5 * * * *", ZoneId.of("UTC"));

    assertEquals(List.of(Instant.parse("2026-12-01T10:05:00Z"), Instant.parse("2026-12-01T10:10:00Z")),
        ticks(c, "2026-12-01T10:00:00Z", 2));
    assertEquals(Instant.parse("2026-12-01T10:05:00Z"), c.next(Instant.parse("2026-12-01T10:04:59.999Z")).orElseThrow());
  }

  @Test
  void sixFieldCronTicksEverySecond() {
    Cadence c = new Cadence.Cron("*/1 * * * * *", ZoneId.of("UTC"));

    assertEquals(List.of(Instant.parse("2026-12-01T10:00:01Z"), Instant.parse("2026-12-01T10:00:02Z")),
        ticks(c, "2026-12-01T10:00:00Z", 2));
    assertEquals(Instant.parse("2026-12-01T10:00:01Z"), c.next(Instant.parse("2026-12-01T10:00:00.500Z")).orElseThrow());
  }

  @Test
  void dailyDigestAtNineInShanghaiIsOneInTheMorningUtc() {
    Cadence c = new Cadence.Cron("0 9 * * *", ZoneId.of("Asia/Shanghai"));

    assertEquals(List.of(Instant.parse("2026-12-02T01:00:00Z"), Instant.parse("2026-12-03T01:00:00Z")),
        ticks(c, "2026-12-01T02:00:00Z", 2));
  }

  @Test
  void nineOClockInNewYorkFollowsTheDaylightSavingChanges() {
    Cadence c = new Cadence.Cron("0 9 * * *", ZoneId.of("America/New_York"));

    // EDT starts 2026-03-08: 09:00 is 14:00Z before, 13:00Z after; EST is back on 2026-11-01
    assertEquals(List.of(Instant.parse("2026-03-07T14:00:00Z"), Instant.parse("2026-03-08T13:00:00Z"),
        Instant.parse("2026-03-09T13:00:00Z")), ticks(c, "2026-03-07T00:00:00Z", 3));
    assertEquals(List.of(Instant.parse("2026-10-31T13:00:00Z"), Instant.parse("2026-11-01T14:00:00Z")),
        ticks(c, "2026-10-31T00:00:00Z", 2));
  }

  @Test
  void aTickInTheSkippedHourOfSpringForwardStillFiresOnceThatDay() {
    Cadence c = new Cadence.Cron("30 2 * * *", ZoneId.of("America/New_York"));

    List<Instant> t = ticks(c, "2026-03-07T00:00:00Z", 3);

    assertEquals(Instant.parse("2026-03-07T07:30:00Z"), t.get(0));
    // 02:30 does not exist on 2026-03-08: it fires once, at 03:30 EDT (07:30Z), then 02:30 EDT (06:30Z)
    assertEquals(Instant.parse("2026-03-08T07:30:00Z"), t.get(1));
    assertEquals(Instant.parse("2026-03-09T06:30:00Z"), t.get(2));
  }

  @Test
  void aTickInTheRepeatedHourOfFallBackFiresOnce() {
    Cadence c = new Cadence.Cron("30 1 * * *", ZoneId.of("America/New_York"));

    List<Instant> t = ticks(c, "2026-10-31T12:00:00Z", 2);

    // 01:30 happens twice on 2026-11-01 (EDT, then EST): one tick, then 01:30 EST on the 2nd
    assertEquals(Instant.parse("2026-11-01T05:30:00Z"), t.get(0));
    assertEquals(Instant.parse("2026-11-02T06:30:00Z"), t.get(1));
  }

  @Test
  void everyTicksAtMultiplesOfItsIntervalSinceTheEpoch() {
    Cadence c = new Cadence.Every(Duration.ofSeconds(30));

    assertEquals(List.of(Instant.parse("2026-12-01T10:00:30Z"), Instant.parse("2026-12-01T10:01:00Z")),
        ticks(c, "2026-12-01T10:00:12.345Z", 2));
    assertEquals(Instant.parse("2026-12-01T10:01:00Z"), c.next(Instant.parse("2026-12-01T10:00:30Z")).orElseThrow());
  }

  @Test
  void badCadencesAreRefusedNamingWhatIsWrong() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new Cadence.Cron("* * *", ZoneId.of("UTC")))
        .getMessage().contains("has 3 fields"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new Cadence.Cron("61 * * * *", ZoneId.of("UTC")))
        .getMessage().contains("'61 * * * *' is not valid"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new Cadence.Every(Duration.ofMillis(500)))
        .getMessage().contains("at least 1s"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Cadence.zone("Mars/Olympus"))
        .getMessage().contains("'Mars/Olympus' is not a time zone"));
  }
}
