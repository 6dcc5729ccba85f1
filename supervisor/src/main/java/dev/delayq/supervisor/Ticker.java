package dev.delayq.supervisor;

/** The monotonic clock of supervision windows and timeouts; tests pass one they move by hand. */
@FunctionalInterface
public interface Ticker {
  long nanos();

  Ticker SYSTEM = System::nanoTime;
}
