package dev.delayq.scheduler;

import dev.delayq.process.LogText;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.Inspector;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Recoverer takes back the in-flight jobs of consumers whose heartbeat expired (a process
 * that is stuck, paused, cut off, or died without the supervisor seeing it), so they run
 * again with attempt + 1. The script re-checks the expiry, so a consumer that just came back
 * keeps its jobs; one that comes back later finds its ack fenced. Now and then it also sweeps
 * for in-flight lists whose consumer is not registered at all (it died in the instant between
 * its claim and re-registering); a list seen unregistered twice in a row is taken back.
 */
final class Recoverer {
  private static final Logger log = LoggerFactory.getLogger(Recoverer.class);
  private static final int CONSUMERS_PER_TICK = 100;

  private static final int SWEEP_EVERY_TICKS = 30;

  private final RedisBroker broker;
  private final Inspector inspector;
  private final int poisonPillAfter;
  private Set<String> unregisteredLastSweep = Set.of();
  private int ticks;

  Recoverer(RedisBroker broker, int poisonPillAfter) {
    this.broker = broker;
    this.inspector = new Inspector(broker.redis(), broker.keys());
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
            r.requeued() + r.deadLettered(), LogText.escape(consumer), r.requeued(), r.deadLettered());
      }
      taken += r.requeued() + r.deadLettered();
    }
    if (++ticks % SWEEP_EVERY_TICKS == 0) {
      taken += sweepUnregistered();
    }
    return taken;
  }

  /** Takes back the lists of consumers that were unregistered at this sweep and the last. */
  int sweepUnregistered() {
    Set<String> now = new HashSet<>(inspector.unregisteredConsumers());
    int taken = 0;
    for (String consumer : now) {
      if (unregisteredLastSweep.contains(consumer)) {
        RedisBroker.Requeued r = broker.requeueInFlight(consumer, RedisBroker.RequeueMode.GONE,
            "in-flight list of unregistered consumer " + consumer, poisonPillAfter);
        if (r.requeued() + r.deadLettered() > 0) {
          log.warn("recovered {} job(s) from the unregistered consumer {}", r.requeued() + r.deadLettered(),
              LogText.escape(consumer));
        }
        taken += r.requeued() + r.deadLettered();
      }
    }
    unregisteredLastSweep = now;
    return taken;
  }
}
