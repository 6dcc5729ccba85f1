package dev.delayq.redis;

import dev.delayq.config.JobTypes;
import java.util.List;

/** Pause and resume of a queue or one job type, shard by shard (flow control, include/flow.lua). */
final class PauseControl {

  private final Keys keys;
  private final RedisBroker broker;
  private final Inspector inspector;

  PauseControl(Keys keys, RedisBroker broker, Inspector inspector) {
    this.keys = keys;
    this.broker = broker;
    this.inspector = inspector;
  }

  /**
   * Pauses {@code scope} ({@link Admin#WHOLE_QUEUE} or a job type): its jobs are still accepted and
   * fall due, and none starts until {@link Admin#resume}; jobs already running finish. Kept in Redis,
   * so it outlives every process. Returns false when it was paused already (since then).
   *
   * <p>A sharded queue is paused shard by shard, in shard order, each shard's claims holding its
   * jobs from its own write on. A shard whose master fails does not stop the others: the call
   * then throws {@link ShardsNotDoneException} naming it, {@link Admin#flow} shows the scope paused on
   * only some shards, and calling again pauses the shards not done (each keeps its first since).
   * True when any shard was not paused before.
   */
  boolean pause(String scope) {
    checkScope(scope);
    List<Boolean> now = EachShard.apply(keys, "pause of " + shown(scope), shard -> broker.flow().pause(shard, scope));
    return now.contains(true);
  }

  /**
   * Lifts the pause of {@code scope} and gives back to ready every job held meanwhile. Returns
   * {was paused, jobs given back}. A sharded queue is resumed shard by shard, in shard order, each
   * shard's held jobs given back in bounded batches before the next shard is resumed; a shard
   * whose master fails keeps its pause and its held jobs, the call throws
   * {@link ShardsNotDoneException} naming it, and calling again resumes it.
   */
  Resumed resume(String scope) {
    checkScope(scope);
    List<Resumed> shards = EachShard.apply(keys, "resume of " + shown(scope), shard -> resume(shard, scope));
    boolean was = shards.stream().anyMatch(Resumed::wasPaused);
    return new Resumed(was, shards.stream().mapToInt(Resumed::givenBack).sum());
  }

  private Resumed resume(int shard, String scope) {
    boolean was = false;
    int given = 0;
    while (true) {
      Resumed r = broker.flow().resume(shard, scope, Admin.BATCH);
      was |= r.wasPaused();
      given += r.givenBack();
      if (r.givenBack() < Admin.BATCH) {
        return new Resumed(was, given);
      }
    }
  }

  /** Paused scopes and held jobs, over every shard (a scope paused on some shards only shows as such). */
  Inspector.Flow flow() {
    return inspector.flow();
  }

  private String shown(String scope) {
    return (Admin.WHOLE_QUEUE.equals(scope) ? "queue " : "type " + scope + " in queue ") + keys.queue();
  }

  private static void checkScope(String scope) {
    if (!Admin.WHOLE_QUEUE.equals(scope) && !JobTypes.isValid(scope)) {
      throw new IllegalArgumentException("'" + scope + "' is not a job type ([a-z0-9_.:-], 1 to 64 characters)");
    }
  }
}
