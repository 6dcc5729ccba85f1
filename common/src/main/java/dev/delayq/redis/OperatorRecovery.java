package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;

/** {@code delayq recover}: the one {@link Recovery} policy run now, then the orphan records put back. */
final class OperatorRecovery {
  private final RedisBroker broker;
  private final Inspector inspector;
  private final int poisonPillAfter;

  OperatorRecovery(RedisBroker broker, Inspector inspector, int poisonPillAfter) {
    this.broker = broker;
    this.inspector = inspector;
    this.poisonPillAfter = poisonPillAfter;
  }

  /**
   * Runs the recoverer now, by the one {@link Recovery} policy: takes back the in-flight jobs of
   * consumers whose heartbeat expired and of in-flight lists with no registered consumer (seen so
   * twice, a moment apart, so a consumer registering right now keeps its claim), charging only the
   * job each had running; then
   * puts every hash orphan the consistency check confirms back on ready, each re-checked
   * atomically by its script.
   */
  Admin.RecoverReport recover() {
    Recovery recovery = new Recovery(broker, inspector, poisonPillAfter);
    List<Recovery.TakenBack> expired = recovery.expired(broker.redisNowMs(), Integer.MAX_VALUE, " (delayq recover)");
    List<Recovery.TakenBack> unregistered = recovery.sweepUnregistered(" (delayq recover)");
    if (recovery.unregisteredSeen() > 0) {
      sleepQuietly(100); // a consumer registering right now keeps its claim: look again
      unregistered = recovery.sweepUnregistered(" (delayq recover)");
    }
    int requeued = 0;
    int charged = 0;
    int dead = 0;
    for (Recovery.TakenBack t : concat(expired, unregistered)) {
      requeued += t.result().taken() - t.result().deadLettered();
      charged += t.result().charged();
      dead += t.result().deadLettered();
    }
    int orphansRequeued = 0;
    int orphansDead = 0;
    for (InvariantCheck.Breach b : broker.invariantCheck().breaches()) {
      if (b.kind() == InvariantCheck.Breach.Kind.ORPHAN_RECORD) {
        OrphanRequeue done = requeueOrphan(b.id());
        if (done == OrphanRequeue.REQUEUED) {
          orphansRequeued++;
        } else if (done == OrphanRequeue.DEAD_LETTERED) {
          orphansDead++;
        }
      }
    }
    return new Admin.RecoverReport(expired.size(), unregistered.size(), requeued, charged, dead, orphansRequeued,
        orphansDead);
  }

  private static <T> List<T> concat(List<T> a, List<T> b) {
    List<T> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /** Puts an orphan record back on ready, re-checked atomically by requeueOrphan.lua. */
  OrphanRequeue requeueOrphan(String id) {
    return broker.requeueOrphan(id, inspector.inFlightKeys(broker.keys().shardOf(id)), "orphan record (delayq recover)");
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
