package dev.delayq.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link JobContext} and {@link JobResult}: what a handler sees and says. */
class JobContextTest {
  record Order(long orderId) {}

  private static JobContext context(String payload, int attempt, int maxAttempts) {
    return new JobContext("j1", "order_close", payload, attempt, maxAttempts,
        Instant.ofEpochMilli(1_000), Instant.ofEpochMilli(2_000), Map.of(), () -> false, null);
  }

  @Test
  void payloadBindsToAClassIgnoringUnknownProperties() {
    JobContext ctx = context("{\"orderId\":1001,\"extra\":true}", 1, 5);

    assertEquals(new Order(1001), ctx.payloadAs(Order.class));
    assertEquals(1001, ctx.payload().get("orderId").asLong());
    assertEquals("{\"orderId\":1001,\"extra\":true}", ctx.payloadJson());
  }

  @Test
  void payloadThatDoesNotBindIsRefusedNamingTheJobAndClass() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> context("{\"orderId\":\"abc\"}", 1, 5).payloadAs(Order.class));

    assertTrue(e.getMessage().contains("payload of job j1 does not bind to Order"), e.getMessage());
  }

  @Test
  void lastAttemptIsKnownToTheHandler() {
    assertFalse(context("{}", 4, 5).isLastAttempt());
    assertTrue(context("{}", 5, 5).isLastAttempt());
    assertEquals("order_close j1 (attempt 5/5)", context("{}", 5, 5).toString());
  }

  @Test
  void resultIsDoneOrRescheduleWithANonNegativeDelay() {
    assertSame(JobResult.done(), JobResult.done());
    assertEquals(Duration.ofSeconds(30), ((JobResult.RescheduleIn) JobResult.rescheduleIn(Duration.ofSeconds(30))).delay());
    assertThrows(IllegalArgumentException.class, () -> JobResult.rescheduleIn(Duration.ofSeconds(-1)));
    assertThrows(NullPointerException.class, () -> JobResult.rescheduleIn(null));
  }
}
