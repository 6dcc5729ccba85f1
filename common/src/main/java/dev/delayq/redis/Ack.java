package dev.delayq.redis;

/** How an acknowledgement (alone, or folded into a claim, start or release) went. */
public enum Ack {
  /** The job is forgotten. */
  ACKED,
  /**
   * The delivery was no longer the consumer's and its job's record is still there (taken back:
   * the job lives on elsewhere): nothing changed for it.
   */
  FENCED,
  /**
   * The delivery was no longer the consumer's and its job's record is gone: the job ended, by
   * an earlier call of this same acknowledgement (one whose replicas did not confirm it, see
   * {@link #unconfirmedAck}) or, after a take-back, by another delivery. Nothing changed.
   */
  ENDED,
  /** None was asked for. */
  NONE;

  static Ack of(Object code) {
    long c = (Long) code;
    return c == 1 ? ACKED : c == 0 ? FENCED : c == 2 ? ENDED : NONE;
  }

  /** True when the delivery was no longer the consumer's (FENCED or ENDED). */
  public boolean refused() {
    return this == FENCED || this == ENDED;
  }
}
