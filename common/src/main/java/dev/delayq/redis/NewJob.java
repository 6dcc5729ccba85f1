package dev.delayq.redis;

/**
 * One job as {@link Script#ENQUEUE} takes it; {@code when} is a delay or a due time;
 * {@code ifPending} what to do when the id exists and is pending.
 */
public record NewJob(String id, String recordHead, String payloadJson, long when, boolean absolute,
    PendingRule ifPending) {
  public NewJob(String id, String recordHead, String payloadJson, long when, boolean absolute) {
    this(id, recordHead, payloadJson, when, absolute, PendingRule.KEEP);
  }
}
