package dev.delayq.process;

/**
 * Spreads a wait so that many threads or processes that failed at the same moment (every
 * consumer when Redis restarts) do not retry at the same moment: half the wait is kept, the other
 * half is random ("equal jitter"). Pure: the caller passes the random number.
 */
public final class Jitter {
  private Jitter() {}

  /** {@code ms} spread over [ms/2, ms), for {@code random} in [0, 1). */
  public static long spread(long ms, double random) {
    long half = ms / 2;
    return half + (long) ((ms - half) * random);
  }
}
