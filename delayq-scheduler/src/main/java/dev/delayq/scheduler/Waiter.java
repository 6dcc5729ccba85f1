package dev.delayq.scheduler;

import java.util.concurrent.locks.LockSupport;

/**
 * A timed wait that another thread can cut short. The deadline is kept here, on the JVM's
 * monotonic clock, and not as a Redis blocking timeout: Redis fires those only at its hz tick
 * (every 100 ms by default), which would make every job up to 100 ms late.
 */
final class Waiter {
  private volatile Thread sleeper;
  private volatile boolean woken;

  /** Waits until {@code deadlineNanos} (System.nanoTime) or a {@link #wake()}, whichever first. */
  void awaitUntil(long deadlineNanos) {
    sleeper = Thread.currentThread();
    try {
      while (!woken && !Thread.currentThread().isInterrupted()) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          break;
        }
        LockSupport.parkNanos(this, left);
      }
    } finally {
      woken = false;
      sleeper = null;
    }
  }

  void wake() {
    woken = true;
    Thread t = sleeper;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }
}
