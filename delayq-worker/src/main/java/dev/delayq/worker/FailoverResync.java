package dev.delayq.worker;

import dev.delayq.redis.Delivery;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.Released;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After a failover, a consumer's in-flight list on the new master can hold deliveries the
 * consumer no longer has: their claim reached the replica before it took over, their
 * acknowledgement (or retry) reached only the old master. Left there they would never run again
 * while the consumer lives. So between two batches, holding no job and with its acknowledgements
 * sent, a consumer that sees a new master gives its whole list back to ready, uncharged, to run
 * again (the one case where a finished job runs twice without a crash; with redis.replicaAcks the
 * list is already right and this gives back nothing). The other way round, a batch claimed on
 * the old master may be missing on the new one, so the consumer confirms each of its jobs with
 * Redis before starting it, as when its lease had lapsed.
 */
final class FailoverResync {
  private static final Logger log = LoggerFactory.getLogger(FailoverResync.class);
  private static final long FLUSH_NANOS = 5_000_000_000L;

  private final RedisBroker broker;
  private final LongSupplier masterEpoch;

  FailoverResync(RedisBroker broker, LongSupplier masterEpoch) {
    this.broker = broker;
    this.masterEpoch = masterEpoch;
  }

  /** The master epoch now: it grows with every change of master. */
  long epoch() {
    return masterEpoch.getAsLong();
  }

  /**
   * Called by a consumer that holds no job and saw the master change: sends what it reported,
   * then acknowledges {@code pendingAck} (null for none) and gives back every other delivery its
   * list holds on the new master. Empty when the acknowledgements could not be sent yet (nothing
   * was given back: the caller tries again later).
   */
  Optional<Released> giveBack(String consumerId, AckSender.Channel acks, Delivery pendingAck)
      throws InterruptedException {
    if (!acks.flush(System.nanoTime() + FLUSH_NANOS)) {
      return Optional.empty();
    }
    Released r = broker.acks().releaseClaimed(consumerId, pendingAck);
    if (r.released() > 0) {
      log.warn("{}: the Redis master changed; gave back {} job(s) its list still held on the new "
          + "master (their outcome reached only the old one): they run again, uncharged", consumerId,
          r.released());
    }
    return Optional.of(r);
  }
}
