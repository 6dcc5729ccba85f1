package dev.delayq.scheduler;

import dev.delayq.config.DelayqConfig;
import dev.delayq.config.Durations;
import dev.delayq.process.LogText;
import dev.delayq.redis.HandlerWait;
import dev.delayq.redis.Recovery;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.ShardReply;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Recoverer takes back the in-flight jobs of consumers whose heartbeat expired (a process
 * that is stuck, paused, cut off, or died without the supervisor seeing it), by the one
 * {@link Recovery} policy: the job whose handler was running counts an attempt, the others go
 * back as they were. The script re-checks the expiry, so a consumer that just came back keeps its
 * jobs; one that comes back later finds its outcomes fenced. Every {@value #SWEEP_EVERY_TICKS}
 * ticks it also sweeps for in-flight lists whose consumer is not registered at all. Each pass
 * also sends to dead the jobs that waited for a handler longer than {@code queue.handlerWait}
 * while no live worker announced their type ({@link HandlerWait#expire}).
 */
final class Recoverer {
  private static final Logger log = LoggerFactory.getLogger(Recoverer.class);
  private static final int CONSUMERS_PER_TICK = 100;
  private static final int SWEEP_EVERY_TICKS = 30;
  /** Jobs a handler-wait expiry sends to dead per script call. */
  private static final int CHUNK = 1000;

  private final RedisBroker broker;
  private final Recovery recovery;
  /** Per shard, its passes (a shard's pass may run on its master's thread: see {@link #ticks}). */
  private final AtomicIntegerArray ticks;
  private final HandlerWait handlerWait;
  private final Duration handlerWaitLimit;

  Recoverer(RedisBroker broker, int poisonPillAfter) {
    this(broker, poisonPillAfter, DelayqConfig.Queue.DEFAULT_HANDLER_WAIT);
  }

  /** {@code handlerWait}: how long a job may wait for a handler no live worker has (queue.handlerWait). */
  Recoverer(RedisBroker broker, int poisonPillAfter, Duration handlerWait) {
    this.broker = broker;
    this.handlerWait = broker.handlerWait();
    this.handlerWaitLimit = handlerWait;
    this.recovery = new Recovery(broker, poisonPillAfter);
    this.ticks = new AtomicIntegerArray(broker.shards());
  }

  /** One pass over the consumers expired by {@code redisNowMs}; returns the jobs taken back. */
  int tick(long redisNowMs) {
    return tick(0, redisNowMs);
  }

  /** One pass over one shard (the scheduler holds its lease). */
  int tick(int shard, long redisNowMs) {
    int taken = logged(recovery.expired(shard, redisNowMs, CONSUMERS_PER_TICK, ""));
    if (ticks.incrementAndGet(shard) % SWEEP_EVERY_TICKS == 0) {
      taken += sweepUnregistered(shard);
    }
    return taken + expireHandlerWaits(shard);
  }

  /**
   * One pass over each of {@code shards} ({@code redisNowMs} by shard), each answered alone: on a
   * cluster each master's shards on that master's own thread, so a hung master's recovery is left
   * in flight ({@link dev.delayq.redis.NodeInFlightException}) and holds up no other shard.
   */
  List<ShardReply<Integer>> ticks(List<Integer> shards, long[] redisNowMs) {
    return broker.scheduling().eachShardApart(shards, shard -> tick(shard, redisNowMs[shard]));
  }

  /** Takes back the lists of consumers that were unregistered at this sweep and the last. */
  int sweepUnregistered() {
    return sweepUnregistered(0);
  }

  int sweepUnregistered(int shard) {
    return logged(recovery.sweepUnregistered(shard, ""));
  }

  /** Dead-letters, a bounded batch at a time, the jobs whose handler no live worker had for too long. */
  private int expireHandlerWaits(int shard) {
    int dead = 0;
    int n;
    do {
      n = handlerWait.expire(shard, handlerWaitLimit, CHUNK);
      dead += n;
    } while (n == CHUNK);
    if (dead > 0) {
      log.warn("{} job(s) went to dead: no live worker had a handler for their type for {}", dead,
          Durations.format(handlerWaitLimit));
    }
    return dead;
  }

  private static int logged(List<Recovery.TakenBack> takenBack) {
    for (Recovery.TakenBack t : takenBack) {
      if (t.result().taken() > 0) {
        log.warn("recovered {}", LogText.escape(t.describe()));
      }
    }
    return Recovery.taken(takenBack);
  }
}
