package dev.delayq.redis;

/** How {@link #changePending} sets the due time. */
public enum DueChange {
  /** Due now, at the end of ready consumers take next (promote). */
  NOW("now"),
  /** Due {@code amount} ms after Redis's now. */
  DELAY("delay"),
  /** Due at {@code amount}, epoch ms. */
  AT("at"),
  /** The due time stays (an edit of the payload only). */
  KEEP("keep");

  /** As changePending.lua takes it. */
  final String arg;

  DueChange(String arg) {
    this.arg = arg;
  }
}
