package dev.delayq;

import dev.delayq.redis.Workflows;
import java.time.Instant;

/**
 * A batch as Redis keeps it ({@link DelayQueue#batchStatus}): its state, how many jobs it took
 * ({@code total}) and how they stand: {@code pending} (not ended: waiting, delayed, ready, running
 * or dead and retried), {@code done}, {@code dead}, {@code cancelled}; and its callbacks' ids,
 * chosen at close: {@code firedId} is the one enqueued when it finished (null until then, and
 * when it had no such callback). A finished or cancelled batch is kept for the id retention
 * (24 h when ids are not kept).
 *
 * @param closedAt when it was closed, null while open (or cancelled while open)
 * @param endedAt when it finished or was cancelled, null before
 * @param onSuccessId the success callback's id, null when it has none (or is open)
 * @param onCompleteId the complete callback's id, null when it has none (or is open)
 */
public record BatchStatus(String id, State state, long total, long pending, long done, long dead, long cancelled,
    Instant createdAt, Instant closedAt, Instant endedAt, String onSuccessId, String onCompleteId, String firedId) {

  /** Where a batch stands. */
  public enum State {
    /** Takes jobs; no callback yet. */
    OPEN,
    /** Closed with its callbacks; its jobs run (and may add jobs to it); fires once none is pending. */
    CLOSED,
    /** Every job ended and its callback (if any) was enqueued: it takes no more jobs. */
    FINISHED,
    /** Cancelled: its pending jobs were withdrawn and no callback fires. */
    CANCELLED
  }

  static BatchStatus of(Workflows.Batch b) {
    State state = switch (b.state()) {
      case "open" -> State.OPEN;
      case "closed" -> State.CLOSED;
      case "finished" -> State.FINISHED;
      case "cancelled" -> State.CANCELLED;
      default -> throw new IllegalStateException("batch " + b.id() + " has the unknown state '" + b.state() + "'");
    };
    return new BatchStatus(b.id(), state, b.total(), b.pending(), b.done(), b.dead(), b.cancelled(),
        Instant.ofEpochMilli(b.createdAt()), instant(b.closedAt()), instant(b.endedAt()), b.successId(),
        b.completeId(), b.firedId());
  }

  private static Instant instant(long ms) {
    return ms <= 0 ? null : Instant.ofEpochMilli(ms);
  }
}
