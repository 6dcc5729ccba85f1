package dev.delayq.redis;

/**
 * A claimed job: its delivery and raw record (null when the id had no record and was dropped,
 * or when the record is too long to read: then {@code tooLongBytes} is its length, else 0).
 */
public record Claimed(Delivery delivery, String rawRecord, long tooLongBytes) {
  public Claimed(Delivery delivery, String rawRecord) {
    this(delivery, rawRecord, 0);
  }

  public String id() {
    return delivery.id();
  }

  /** True when the id had no record (it was dropped). */
  public boolean dropped() {
    return rawRecord == null && tooLongBytes == 0;
  }
}
