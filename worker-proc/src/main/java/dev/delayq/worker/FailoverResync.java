package dev.delayq.worker;

import dev.delayq.redis.RedisBroker;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After a failover, a consumer's in-flight list on the new master can hold jobs the consumer no
 * longer has: their claim reached the replica before it took over, their acknowledgement (or
 * retry) reached only the old master. Left there they would never run again while the consumer
 * lives. So between two batches, holding no job and with the acknowledgements sent, a consumer
 * that sees a new master gives its whole list back to ready, uncounted, to run again (the one
 * case where a finished job runs twice without a crash; with redis.replicaAcks the list is
 * already right and this gives back nothing).
 */
final class FailoverResync {
  private static final Logger log = LoggerFactory.getLogger(FailoverResync.class);
  private static final long FLUSH_NANOS = 5_000_000_000L;

  private final RedisBroker broker;
  private final LongSupplier masterEpoch;
  private final Finisher finisher;

  FailoverResync(RedisBroker broker, LongSupplier masterEpoch, Finisher finisher) {
    this.broker = broker;
    this.masterEpoch = masterEpoch;
    this.finisher = finisher;
  }

  /** The master epoch now: a consumer's starting point. */
  long epoch() {
    return masterEpoch.getAsLong();
  }

  /**
   * Called by a consumer that holds no job, with the epoch it last looked at: when the master
   * changed since, gives back what its list holds; returns the epoch it has now seen (the old one
   * when the acknowledgements could not be sent yet, to try again next time).
   */
  long between(String consumerId, long seenEpoch) throws InterruptedException {
    long now = masterEpoch.getAsLong();
    if (now == seenEpoch) {
      return seenEpoch;
    }
    if (!finisher.flush(System.nanoTime() + FLUSH_NANOS)) {
      return seenEpoch;
    }
    List<String> ids = broker.inFlightIds(consumerId);
    int given = broker.releaseClaimed(consumerId, ids);
    if (given > 0) {
      log.warn("{}: the Redis master changed; gave back {} job(s) its list still held on the new "
          + "master (their outcome reached only the old one): they run again", consumerId, given);
    }
    return now;
  }
}
