package dev.delayq.worker;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.job.RetryPolicy;
import dev.delayq.metrics.StatsRecorder;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.Keys;
import dev.delayq.tracing.Tracing;
import java.time.Duration;
import java.util.List;

/**
 * Runs a worker's path from a claimed record to a handler's start and back to its outcome
 * ({@link JobRunner}: record decoding, payload checks, the job context, tracing, the time limit,
 * the outcome) a few hundred times on a made-up record, with a handler of its own, before the
 * worker's first heartbeat. In a fresh JVM that path's first run loads and links its classes and
 * bootstraps its lambdas, in the interpreter, which made the first jobs of a new worker start
 * several ms late (up to 20 ms on a loaded host, with all consumers doing it at once).
 *
 * <p>It runs no job and touches no Redis key: the record is not read from Redis, no handler of
 * the worker runs, its stats go to a recorder of its own that is never flushed, its time limit to
 * a watchdog slot no watchdog watches, and it makes no tracing span.
 */
final class WarmUp {
  /** Runs of the path: its classes are loaded by the first, a few hundred get its hottest methods compiled. */
  static final int ROUNDS = 300;
  /** Its handler's type, in its own registry (a user's handler of this type is never run by it). */
  static final String TYPE = "delayq:warm-up";

  private WarmUp() {}

  /** Runs the path {@code rounds} times on the caller's thread; returns how many ran to their outcome. */
  static int run(Keys keys, Duration jobTimeout, RetryPolicy retry, int rounds) {
    HandlerRegistry own = HandlerRegistry.of(List.of(new Noop()));
    JobRunner runner = new JobRunner(own, new StatsRecorder(keys), jobTimeout, retry, keys.queue(), id -> { },
        Tracing.none());
    Watchdog.Slot slot = new Watchdog.Slot("warm-up", Thread.currentThread());
    // a slot clears the thread's interrupt at each run, as a consumer's does: the caller's is kept
    boolean interrupted = Thread.interrupted();
    try {
      return rounds(runner, slot, rounds);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static int rounds(JobRunner runner, Watchdog.Slot slot, int rounds) {
    int acked = 0;
    for (int i = 0; i < rounds; i++) {
      long now = System.currentTimeMillis();
      String record = "{\"t\":\"" + TYPE + "\",\"m\":1,\"c\":" + now + ",\"d\":0,\"p\":{\"round\":" + i
          + ",\"text\":\"warm-up\",\"list\":[1,2.5,true,null]}}";
      Outcome outcome = runner.run(slot, new Claimed(new Delivery(i + 1, "warm-up-" + i), record));
      if (outcome instanceof Outcome.Ack) {
        acked++;
      }
    }
    return acked;
  }

  /** Reads its payload, as most handlers do first, and is done. */
  private static final class Noop implements JobHandler {
    @Override
    public String type() {
      return TYPE;
    }

    @Override
    public JobResult handle(JobContext context) {
      return context.payload().path("round").isInt() ? JobResult.done() : JobResult.rescheduleIn(Duration.ofSeconds(1));
    }
  }
}
