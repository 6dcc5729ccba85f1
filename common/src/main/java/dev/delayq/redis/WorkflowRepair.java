package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * repairWorkflow.lua's door: what {@code delayq recover} does to each workflow breach the check
 * found ({@link InvariantCheck.Breach.Kind#WAITING_RELEASABLE} and the three after it), one
 * script call per item, the breach looked for again inside it so a worker's move since the check
 * is never undone.
 */
final class WorkflowRepair {
  /** What a repair did. */
  enum Done {
    /** Nothing to repair any more when the script looked: nothing changed. */
    UNCHANGED,
    /** A waiting job released to its place. */
    RELEASED,
    /** A waiting job dead, as its policy says for a dependency that ended dead, cancelled or purged. */
    FAILED,
    /** A waiting entry without a record removed with its wait sets. */
    FORGOTTEN,
    /** A lost batch member counted (by its kept result, else dead). */
    COUNTED,
    /** A lost batch member counted, and its batch finished with it (its callback enqueued). */
    COUNTED_AND_FINISHED,
    /** A closed batch with no job pending finished (its callback enqueued). */
    FINISHED;

    static Done of(long code) {
      return switch ((int) code) {
        case 0 -> UNCHANGED;
        case 1 -> RELEASED;
        case 2 -> FAILED;
        case 3 -> FORGOTTEN;
        case 4 -> COUNTED;
        case 5 -> COUNTED_AND_FINISHED;
        case 6 -> FINISHED;
        default -> throw new IllegalStateException("repairWorkflow.lua answered " + code);
      };
    }
  }

  private final Keys keys;
  private final Scripts scripts;
  private final String keepMs;

  WorkflowRepair(Keys keys, Scripts scripts, String keepMs) {
    this.keys = keys;
    this.scripts = scripts;
    this.keepMs = keepMs;
  }

  /** Releases (or fails, by its policy) the waiting job {@code id} whose dependencies have all ended. */
  Done release(String id, String reason) {
    return call(keys.shardOf(id), List.of("release", id, reason));
  }

  /** Removes the waiting entry of {@code id}, which has no record, with its wait sets. */
  Done forgetWaiting(String id) {
    return call(keys.shardOf(id), List.of("forget", id));
  }

  /** Counts the pending member {@code id} of {@code batchId}, which has no record, as ended. */
  Done countLost(String batchId, String id) {
    return call(keys, List.of("lost", batchId, id));
  }

  /** Finishes the closed batch {@code batchId} with no job pending, firing its callback. */
  Done finish(String batchId) {
    return call(keys, List.of("finish", batchId));
  }

  // a workflow lives in one shard (Workflows refuses sharded queues): a batch in the queue's keys
  private Done call(Keys shard, List<String> repair) {
    List<String> args = new ArrayList<>(List.of(shard.flowBase(), keepMs));
    args.addAll(repair);
    return Done.of((Long) scripts.eval(Script.REPAIR_WORKFLOW,
        List.of(shard.jobs(), shard.waiting(), shard.batches()), args));
  }
}
