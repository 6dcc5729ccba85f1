package dev.delayq.test;

/**
 * What one {@link TestQueue#runDue()} or {@link TestQueue#runAll()} ran: handler calls, the ones
 * that returned, and the ones that threw (or ran out of time). A job retried three times counts
 * three runs.
 */
public record Runs(int ran, int succeeded, int failed) {
  Runs minus(Runs before) {
    return new Runs(ran - before.ran, succeeded - before.succeeded, failed - before.failed);
  }
}
