package dev.delayq;

import java.time.Duration;
import java.util.Objects;

/**
 * A batch's callback ({@link Batch#close}): a job of its own, enqueued once when the batch
 * finished, after {@code delay}. Its id is known at close: the one given with {@link #withId},
 * else a generated one ({@link BatchStatus#onSuccessId()}, {@link BatchStatus#onCompleteId()}).
 */
public record BatchCallback(String type, Object payload, Duration delay, String id) {

  public BatchCallback {
    DelayQueue.checkType(type);
    delay = Objects.requireNonNullElse(delay, Duration.ZERO);
    DueTime.delayMs(delay);
    if (id != null) {
      JobOptions.checkId("callback id", id);
    }
  }

  /** A callback job of {@code type} with {@code payload}, due as soon as the batch finished. */
  public static BatchCallback of(String type, Object payload) {
    return new BatchCallback(type, payload, Duration.ZERO, null);
  }

  /** This callback due {@code after} the batch finished. */
  public BatchCallback after(Duration after) {
    return new BatchCallback(type, payload, after, id);
  }

  /** This callback under {@code newId} (kept taken for the id retention once it ended, as any chosen id). */
  public BatchCallback withId(String newId) {
    return new BatchCallback(type, payload, delay, newId);
  }
}
