package dev.delayq.worker;

import dev.delayq.job.JobResult;
import dev.delayq.job.RetryPolicy;
import dev.delayq.redis.JobRecord;
import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * What happens to a job after its run; each is exactly one script call. {@link #decide} is
 * the whole policy, a pure function of the record, how the run ended and a random number.
 * Delays are in milliseconds, as Redis takes them: a duration too long for that throws
 * ArithmeticException here, where the job runner turns it into a failed attempt.
 */
sealed interface Outcome {

  record Ack() implements Outcome {}

  record Retry(long delayMs, String error) implements Outcome {}

  record Reschedule(long delayMs) implements Outcome {}

  record DeadLetter(String error) implements Outcome {}

  int MAX_ERROR_CHARS = 2000;

  static Outcome decide(JobRecord job, RunResult run, RetryPolicy policy, double random) {
    if (run instanceof RunResult.Cancelled) {
      return new Ack(); // a cancelled job ends here: never retried, whatever its handler did
    }
    if (run instanceof RunResult.Returned r) {
      if (r.result() instanceof JobResult.RescheduleIn again) {
        return new Reschedule(again.delay().toMillis());
      }
      return new Ack();
    }
    String error;
    if (run instanceof RunResult.Threw t) {
      error = describe(t.error());
    } else {
      RunResult.TimedOut t = (RunResult.TimedOut) run;
      error = "timed out after " + t.limit().toMillis() + " ms (the handler was interrupted)";
    }
    return failed(job, error, policy, random);
  }

  /** A failed attempt: retried with backoff, or dead-lettered after the last one. */
  static Outcome failed(JobRecord job, String error, RetryPolicy policy, double random) {
    String tagged = "attempt " + job.attempt() + "/" + job.maxAttempts() + ": " + error;
    if (job.attempt() >= job.maxAttempts()) {
      return new DeadLetter(tagged);
    }
    return new Retry(policy.backoff(job.attempt(), random).toMillis(), tagged);
  }

  /** The error's class, message and first frames of its stack, bounded in size. */
  static String describe(Throwable error) {
    StringWriter text = new StringWriter();
    error.printStackTrace(new PrintWriter(text));
    String s = text.toString().replace("\t", "  ");
    return s.length() <= MAX_ERROR_CHARS ? s.strip() : s.substring(0, MAX_ERROR_CHARS) + "…";
  }
}
