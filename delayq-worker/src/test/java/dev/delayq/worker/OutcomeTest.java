package dev.delayq.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.job.JobResult;
import dev.delayq.job.RetryPolicy;
import dev.delayq.redis.JobRecord;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link Outcome#decide}: the whole after-run policy, as a pure function. */
class OutcomeTest {
  private static final RetryPolicy POLICY = new RetryPolicy(Duration.ofSeconds(1), Duration.ofHours(1), 0.5);

  private static JobRecord job(int attempt, int maxAttempts) {
    return new JobRecord("j1", "test_job", attempt, maxAttempts, 0, 0, null, 0, 0, "{}");
  }

  @Test
  void doneIsAcknowledged() {
    Outcome o = Outcome.decide(job(1, 5), new RunResult.Returned(JobResult.done()), POLICY, 0.5);

    assertEquals(new Outcome.Ack(), o);
  }

  @Test
  void aCancelledRunEndsAsCancelledEvenOnItsLastAttempt() {
    Outcome o = Outcome.decide(job(5, 5), new RunResult.Cancelled(), POLICY, 0.5);

    assertEquals(new Outcome.Ack(true), o, "acknowledged as cancelled: not retried, not dead, not done");
  }

  @Test
  void rescheduleInIsRescheduledAfterTheHandlersDelay() {
    Outcome o = Outcome.decide(job(3, 5),
        new RunResult.Returned(JobResult.rescheduleIn(Duration.ofSeconds(30))), POLICY, 0.5);

    assertEquals(new Outcome.Reschedule(30_000), o);
  }

  @Test
  void rateLimitedWaitsTheHandlersDelayEvenOnTheLastAttempt() {
    Outcome o = Outcome.decide(job(5, 5),
        new RunResult.Returned(JobResult.rateLimited(Duration.ofSeconds(2))), POLICY, 0.5);

    assertEquals(new Outcome.Wait(2_000), o, "no attempt is burned: not a failure, not dead");
  }

  @Test
  void failureWithAttemptsLeftIsRetriedWithThePolicysBackoff() {
    Outcome o = Outcome.decide(job(3, 5), new RunResult.Threw(new IllegalStateException("boom")), POLICY, 0.0);

    Outcome.Retry retry = assertInstanceOf(Outcome.Retry.class, o);
    assertEquals(POLICY.backoff(3, 0.0).toMillis(), retry.delayMs());
    assertEquals(2_000, retry.delayMs(), "1 s * 2^2, less the full 50 % jitter");
    assertTrue(retry.error().startsWith("attempt 3/5: java.lang.IllegalStateException: boom"), retry.error());
  }

  @Test
  void theRandomNumberSpreadsTheBackoff() {
    RunResult failed = new RunResult.Threw(new RuntimeException("x"));

    Outcome.Retry low = (Outcome.Retry) Outcome.decide(job(1, 5), failed, POLICY, 0.0);
    Outcome.Retry high = (Outcome.Retry) Outcome.decide(job(1, 5), failed, POLICY, 0.999);

    assertEquals(500, low.delayMs());
    assertEquals(POLICY.backoff(1, 0.999).toMillis(), high.delayMs());
    assertTrue(high.delayMs() > 1_400);
  }

  @Test
  void failureOnTheLastAttemptIsDeadLettered() {
    Outcome o = Outcome.decide(job(5, 5), new RunResult.Threw(new RuntimeException("still broken")), POLICY, 0.5);

    Outcome.DeadLetter dead = assertInstanceOf(Outcome.DeadLetter.class, o);
    assertTrue(dead.error().startsWith("attempt 5/5: java.lang.RuntimeException: still broken"), dead.error());
  }

  @Test
  void failurePastTheLastAttemptIsDeadLettered() {
    // attempt can pass maxAttempts when lost deliveries were counted by the recoverer
    Outcome o = Outcome.decide(job(6, 5), new RunResult.Threw(new RuntimeException("x")), POLICY, 0.5);

    assertInstanceOf(Outcome.DeadLetter.class, o);
  }

  @Test
  void timeOutIsAFailureThatNamesTheLimit() {
    Outcome o = Outcome.decide(job(1, 5), new RunResult.TimedOut(Duration.ofMillis(2500)), POLICY, 0.5);

    Outcome.Retry retry = assertInstanceOf(Outcome.Retry.class, o);
    assertEquals("attempt 1/5: timed out after 2500 ms (the handler was interrupted)", retry.error());
  }

  @Test
  void timeOutOnTheLastAttemptIsDeadLettered() {
    Outcome o = Outcome.decide(job(2, 2), new RunResult.TimedOut(Duration.ofSeconds(60)), POLICY, 0.5);

    assertEquals(new Outcome.DeadLetter("attempt 2/2: timed out after 60000 ms (the handler was interrupted)"), o);
  }

  @Test
  void errorKeepsTheStackButIsBounded() {
    RuntimeException huge = new RuntimeException("x".repeat(10_000));

    Outcome.Retry retry = (Outcome.Retry) Outcome.decide(job(1, 5), new RunResult.Threw(huge), POLICY, 0.5);

    assertTrue(retry.error().length() <= "attempt 1/5: ".length() + Outcome.MAX_ERROR_CHARS + 1,
        "error is " + retry.error().length() + " chars");
    assertTrue(retry.error().endsWith("…"));
  }

  @Test
  void errorNamesWhereTheHandlerThrew() {
    Outcome.Retry retry = (Outcome.Retry) Outcome.decide(job(1, 5),
        new RunResult.Threw(new RuntimeException("boom")), POLICY, 0.5);

    assertTrue(retry.error().contains("at dev.delayq.worker.OutcomeTest.errorNamesWhereTheHandlerThrew"),
        retry.error());
  }
}
