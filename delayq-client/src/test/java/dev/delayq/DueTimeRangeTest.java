package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.job.JobResult;
import dev.delayq.job.RetryPolicy;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.schedule.Cadence;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Due times have a range, from the epoch to 9999-12-31T23:59:59.999Z (DueTime): every producer
 * door refuses what is outside as bad input naming the limit and the value, overflowing delays
 * included, and stores nothing.
 */
class DueTimeRangeTest {
  private static final String LIMIT = "due times run from the epoch (1970-01-01T00:00:00Z) to 9999-12-31T23:59:59.999Z";

  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final DelayQueue queue = new DelayQueue(broker, 1_048_576, 5);

  private String refused(Executable call) {
    String message = assertThrows(IllegalArgumentException.class, call).getMessage();
    assertTrue(message.contains(LIMIT), message);
    return message;
  }

  @Test
  void theCapKeepsEveryPositionOfTheWheelAt16DigitsExactInADoubleAndTheWheelKeepsTheSameCap() throws Exception {
    long offset = 5_000_000_000_000_000L;  // the wheel's position is '%016d' of due + 5e15
    assertEquals(16, Long.toString(DueTime.LATEST_MS + offset).length());
    assertEquals(16, Long.toString(offset).length(), "the epoch");
    assertTrue(DueTime.LATEST_MS + offset < (1L << 53), "exact in Lua's doubles");
    assertEquals(Instant.parse("9999-12-31T23:59:59.999Z"), DueTime.LATEST);
    try (var lua = DueTime.class.getResourceAsStream("/dev/delayq/lua/include/wheel.lua")) {
      String text = new String(lua.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertTrue(text.contains("local WHEEL_LATEST = " + DueTime.LATEST_MS + "\n"), "wheel.lua keeps DueTime.LATEST_MS");
    }
  }

  @Test
  void delaysPastTheLatestDueTimeAreRefusedWithoutOverflowing() {
    assertTrue(refused(() -> queue.delay("t", "{}", Duration.ofMillis(Long.MAX_VALUE)))
        .startsWith("delay 9223372036854775807ms is too long: "));
    assertTrue(refused(() -> queue.delay("t", "{}", Duration.ofSeconds(Long.MAX_VALUE)))
        .startsWith("delay 9223372036854775807s is too long: "));
    assertTrue(refused(() -> queue.delay("t", "{}", Duration.ofDays(60_000_000)))
        .contains("so a delay from now is at most "));
    refused(() -> queue.enqueueAll(List.of(JobRequest.delay("t", "{}", Duration.ofSeconds(1)),
        JobRequest.delay("t", "{}", Duration.ofMillis(1L << 53)))));
    assertEquals(0, probe.recordCount(), "nothing enqueued");
  }

  @Test
  void instantsOutsideTheRangeAreRefusedAndTheLatestIsKeptExactly() {
    assertEquals("due time +200000-01-01T00:00:00Z is out of range: " + LIMIT,
        refused(() -> queue.schedule("t", "{}", Instant.parse("+200000-01-01T00:00:00Z"))));
    refused(() -> queue.schedule("t", "{}", Instant.EPOCH.minusMillis(1)));
    assertEquals(0, probe.recordCount());

    EnqueueResult latest = queue.schedule("t", "{}", DueTime.LATEST, JobOptions.withId("latest"));

    assertEquals(DueTime.LATEST, latest.dueAt());
    assertEquals(DueTime.LATEST_MS, probe.dueAt("latest"));
    assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), keys).breaches());
    assertEquals(0, broker.scheduling().moveDueToReady(1000).moved());
    assertEquals(List.of("latest"), probe.delayedIds(), "the latest due time is in range: it waits");
  }

  @Test
  void reschedulingPastTheRangeIsRefusedAndTheJobKeepsItsDueTime() {
    long due = probe.seedDelayed("j", 60_000);

    refused(() -> queue.reschedule("j", Duration.ofSeconds(Long.MAX_VALUE)));
    refused(() -> queue.reschedule("j", Duration.ofDays(60_000_000)));
    refused(() -> queue.reschedule("j", Instant.parse("+200000-01-01T00:00:00Z")));

    assertEquals(due, probe.dueAt("j"));
  }

  @Test
  void handlersRetryPoliciesAndSchedulesCannotAskForADueTimeOutOfRange() {
    refused(() -> JobResult.rescheduleIn(Duration.ofSeconds(Long.MAX_VALUE)));
    refused(() -> JobResult.rateLimited(Duration.ofDays(60_000_000)));
    assertTrue(refused(() -> new RetryPolicy(Duration.ofSeconds(1), Duration.ofDays(60_000_000), 0))
        .startsWith("maxDelay: "));
    assertTrue(refused(() -> new Cadence.Every(Duration.ofSeconds(Long.MAX_VALUE))).startsWith("--every: "));
  }
}
