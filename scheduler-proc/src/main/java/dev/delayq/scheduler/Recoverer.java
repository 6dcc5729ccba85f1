package dev.delayq.scheduler;

import dev.delayq.redis.RedisBroker;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Recoverer takes back the in-flight jobs of consumers whose heartbeat expired (a process
 * that is stuck, paused, cut off, or died without the supervisor seeing it), so they run
 * again with attempt + 1. The script re-checks the expiry, so a consumer that just came back
 * keeps its jobs; one that comes back later finds its ack fenced.
 */
final class Recoverer {
  private static final Logger log = LoggerFactory.getLogger(Recoverer.class);
  private static final int CONSUMERS_PER_TICK = 100;

  private final RedisBroker broker;
  private final int poisonPillAfter;

  Recoverer(RedisBroker broker, int poisonPillAfter) {
    this.broker = broker;
    this.poisonPillAfter = poisonPillAfter;
  }

  /** One pass over the consumers expired by {@code redisNowMs}; returns the jobs taken back. */
  int tick(long redisNowMs) {
    int taken = 0;
    List<String> expired = broker.expiredConsumers(redisNowMs, CONSUMERS_PER_TICK);
    for (String consumer : expired) {
      RedisBroker.Requeued r = broker.requeueInFlight(consumer, RedisBroker.RequeueMode.EXPIRED,
          "heartbeat of consumer " + consumer + " expired", poisonPillAfter);
      if (r.consumerAlive()) {
        continue;
      }
      if (r.requeued() + r.deadLettered() > 0) {
        log.warn("recovered {} job(s) of silent consumer {} ({} back to ready, {} to dead)",
            r.requeued() + r.deadLettered(), consumer, r.requeued(), r.deadLettered());
      }
      taken += r.requeued() + r.deadLettered();
    }
    return taken;
  }
}
