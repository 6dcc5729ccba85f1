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

  /** The job ended: done, or cancelled by an operator (its kept id and the counts say which). */
  record Ack(boolean cancelled) implements Outcome {
    Ack() {
      this(false);
    }
  }

  /**
   * The job ended done (or cancelled) and its end is one script of its own, complete.lua: it has a
   * result to keep ({@code resultJson}, null for none), or takes part in a workflow whose counts
   * and waits change with its end.
   */
  record Complete(boolean cancelled, String resultJson) implements Outcome {}

  record Retry(long delayMs, String error) implements Outcome {}

  record Reschedule(long delayMs) implements Outcome {}

  /** The handler was rate limited: back to delayed after delayMs, attempt not counted. */
  record Wait(long delayMs) implements Outcome {}

  record DeadLetter(String error) implements Outcome {}

  /**
   * This worker has no handler for the job's type: the job is left, uncharged, to a worker that
   * has one (it waits for a handler until one announces the type, or queue.handlerWait passes).
   */
  record NoHandler(String type) implements Outcome {}

  int MAX_ERROR_CHARS = 2000;

  static Outcome decide(JobRecord job, RunResult run, RetryPolicy policy, double random) {
    if (run instanceof RunResult.Cancelled) {
      return new Ack(true); // a cancelled job ends here: never retried, whatever its handler did
    }
    if (run instanceof RunResult.Returned r) {
      if (r.result() instanceof JobResult.RescheduleIn again) {
        return new Reschedule(again.delay().toMillis());
      }
      if (r.result() instanceof JobResult.RateLimited limited) {
        return new Wait(limited.retryIn().toMillis());
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
