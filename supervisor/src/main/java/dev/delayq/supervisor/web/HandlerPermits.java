package dev.delayq.supervisor.web;

import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * How many requests are answered at once: {@value #PERMITS}, the web port's Redis connections,
 * whatever the number of connections. It bounds the heap the answers take (each at most a page of
 * previews) while the threads that read requests stay many ({@link SlowClientLimits}). A request
 * that waits longer than {@value #WAIT_SECONDS} s for a permit is answered 503.
 */
final class HandlerPermits {
  static final int PERMITS = 4;
  static final int WAIT_SECONDS = 10;

  private final Semaphore permits = new Semaphore(PERMITS, true);

  /** Runs {@code answer} under a permit; false when none came free in time (nothing ran). */
  boolean run(Answer answer) throws IOException {
    try {
      if (!permits.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)) {
        return false;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    try {
      answer.run();
      return true;
    } finally {
      permits.release();
    }
  }

  /** An answer to one request. */
  interface Answer {
    void run() throws IOException;
  }
}
