package dev.delayq;

import dev.delayq.redis.DueChange;
import dev.delayq.redis.PendingChange;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * JobControl changes one job by its id for {@link DelayQueue}: withdraws it, asks the worker
 * running it to stop it, or moves a job that has not started (due now, due later, a new payload).
 * Each change is one script call that decides and moves at once (the contracts are on the
 * DelayQueue methods that call these).
 */
final class JobControl {
  private final RedisBroker broker;
  private final Payloads payloads;

  JobControl(RedisBroker broker, Payloads payloads) {
    this.broker = broker;
    this.payloads = payloads;
  }

  DelayQueue.Cancel cancelEvenIfRunning(String id) {
    Objects.requireNonNull(id, "id");
    for (int i = 0; i < 3; i++) {
      if (broker.cancel(id)) {
        return DelayQueue.Cancel.CANCELLED;
      }
      switch (broker.requestCancel(id)) {
        case ASKED:
          return DelayQueue.Cancel.INTERRUPTING;
        case DEAD:
          return DelayQueue.Cancel.DEAD;
        case UNKNOWN:
          return DelayQueue.Cancel.UNKNOWN;
        default:
          // it became pending in between (a retry): cancel it as such
      }
    }
    return broker.cancel(id) ? DelayQueue.Cancel.CANCELLED : DelayQueue.Cancel.UNKNOWN;
  }

  boolean cancel(String id) {
    Objects.requireNonNull(id, "id");
    return broker.cancel(id);
  }

  ChangeResult promote(String id) {
    return change(id, DueChange.NOW, 0, null);
  }

  ChangeResult reschedule(String id, Duration delay) {
    return change(id, DueChange.DELAY, DueTime.delayMs(delay), null);
  }

  ChangeResult reschedule(String id, Instant at) {
    return change(id, DueChange.AT, DueTime.atMs(at), null);
  }

  ChangeResult editPayload(String id, Object payload) {
    return change(id, DueChange.KEEP, 0, payloads.toJson(payload));
  }

  private ChangeResult change(String id, DueChange due, long amount, String payloadJson) {
    Objects.requireNonNull(id, "id");
    PendingChange c = broker.changePending(id, due, amount, payloadJson);
    return ChangeResult.of(id, c.place(), c.dueAt());
  }
}
