package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Text UTF-8 cannot hold (a lone surrogate) is refused, naming where it is, not stored as '?'. */
class LoneSurrogateTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final DelayQueue queue = new DelayQueue(broker, 1 << 20, 5);

  private String refusal(Object payload, JobOptions options) {
    return assertThrows(IllegalArgumentException.class,
        () -> queue.delay("t", payload, Duration.ZERO, options)).getMessage();
  }

  @Test
  void aLoneSurrogateInAPayloadIsRefusedWithItsPosition() {
    String expected = "payload holds a lone surrogate, U+D800, at index 7: it is not Unicode text and has "
        + "no UTF-8 form (write the whole pair, or escape the character)";
    assertEquals(expected, refusal("{\"a\":\"x\ud800y\"}", JobOptions.defaults()));
    assertEquals(expected.replace("at index 7", "at index 6"),
        refusal(Map.of("a", "\ud800"), JobOptions.defaults()));
    // a JSON escape of one half is the same text once parsed
    assertEquals(expected.replace("U+D800", "U+DC00").replace("at index 7", "at index 6"),
        refusal("{\"a\":\"\\udc00\"}", JobOptions.defaults()));
    assertEquals(0, probe.recordCount());
  }

  @Test
  void aLoneSurrogateInAHeaderIsRefusedAndAWholePairIsKept() {
    assertEquals("header 'tenant' holds a lone surrogate, U+DBFF, at index 1: it is not Unicode text and has "
        + "no UTF-8 form (write the whole pair, or escape the character)",
        assertThrows(IllegalArgumentException.class,
            () -> JobOptions.defaults().header("tenant", "a\udbff")).getMessage());

    String id = queue.delay("t", "{\"a\":\"\ud83d\ude00\"}", Duration.ofHours(1)).id();

    assertEquals("\ud83d\ude00", probe.record(id).get("payload").get("a").asText());
  }
}
