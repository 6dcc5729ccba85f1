package dev.delayq.redis;

import java.util.List;

/**
 * The outcomes of a delivery other than its plain acknowledgement, each in its id's shard and
 * fenced by the delivery's element: back to delayed (moveToDelayed.lua: a retry, a reschedule, a
 * wait for a rate limit), to dead (deadLetter.lua), or ended with a result or a workflow to settle
 * (complete.lua).
 */
public final class Outcomes {
  private final Keys keys;
  private final Scripts scripts;
  private final String idRetentionMs;
  private final String keepMs;

  Outcomes(Keys keys, Scripts scripts, String idRetentionMs) {
    this.keys = keys;
    this.scripts = scripts;
    this.idRetentionMs = idRetentionMs;
    this.keepMs = Workflows.keepMs(idRetentionMs);
  }

  public Moved retry(String consumerId, Delivery delivery, long delayMs, String error) {
    return moveToDelayed(consumerId, delivery, delayMs, "retry", error);
  }

  public Moved reschedule(String consumerId, Delivery delivery, long delayMs) {
    return moveToDelayed(consumerId, delivery, delayMs, "reschedule", "");
  }

  /** The handler was rate limited: back to delayed after delayMs, attempt and last error kept. */
  public Moved waitRateLimited(String consumerId, Delivery delivery, long delayMs) {
    return moveToDelayed(consumerId, delivery, delayMs, "wait", "");
  }

  private Moved moveToDelayed(String consumerId, Delivery delivery, long delayMs, String mode, String error) {
    Keys keys = this.keys.shardOf(delivery.id());
    long r = (Long) scripts.eval(Script.MOVE_TO_DELAYED,
        List.of(keys.inFlight(consumerId), keys.jobs(), keys.delayed(), keys.wake(), keys.dead()),
        List.of(delivery.element(), Long.toString(delayMs), mode, error));
    return moved(r);
  }

  /** What moveToDelayed.lua's answer {@code r} means: its new due time, 0 fenced, -1 dead instead. */
  static Moved moved(long r) {
    return r > 0 ? Moved.MOVED : r == 0 ? Moved.FENCED : Moved.DEAD;
  }

  /** True when dead-lettered; false when fenced. */
  public boolean deadLetter(String consumerId, Delivery delivery, String error) {
    Keys keys = this.keys.shardOf(delivery.id());
    return ((Long) scripts.eval(Script.DEAD_LETTER,
        List.of(keys.inFlight(consumerId), keys.jobs(), keys.dead()),
        List.of(delivery.element(), error, keys.flowBase(), keepMs))) == 1L;
  }

  /**
   * Ends a delivery done (or, {@code cancelled}, as cancelled) through complete.lua, with its
   * result JSON ({@code null} for none): the way a workflow's job ends, or a job with a result
   * (docs/workflows.md). True when it ended; false when fenced.
   */
  public boolean complete(String consumerId, Delivery delivery, boolean cancelled, String resultJsonOrNull) {
    Keys keys = this.keys.shardOf(delivery.id());
    return ((Long) scripts.eval(Script.COMPLETE,
        List.of(keys.inFlight(consumerId), keys.jobs(), keys.ended(), keys.endedExpiry()),
        List.of(delivery.element(), cancelled ? "cancelled" : "done", resultJsonOrNull == null ? "" : resultJsonOrNull,
            idRetentionMs, keys.flowBase(), keepMs))) == 1L;
  }
}
