package dev.delayq.worker;

import dev.delayq.job.JobResult;
import java.time.Duration;

/** How one run of a handler ended. */
sealed interface RunResult {

  /** The handler returned. */
  record Returned(JobResult result) implements RunResult {}

  /** The handler threw (any Throwable, OutOfMemoryError included). */
  record Threw(Throwable error) implements RunResult {}

  /** The time limit passed; the handler stopped when interrupted. */
  record TimedOut(Duration limit) implements RunResult {}

  /** An operator cancelled the run; the handler stopped (returned or threw) after it. */
  record Cancelled() implements RunResult {}
}
