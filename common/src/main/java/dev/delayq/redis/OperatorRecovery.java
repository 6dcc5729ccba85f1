package dev.delayq.redis;

import dev.delayq.redis.InvariantCheck.Breach;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * {@code delayq recover}: the one {@link Recovery} policy run now, then the orphan records put
 * back and the workflow breaches repaired.
 */
final class OperatorRecovery {
  /** Most lines a report names of what it repaired, and of what it did not. */
  static final int NAMED = 20;
  private static final String COUNTED_AS = " as ended dead (or as its kept result says it ended)";

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
   * puts every hash orphan the consistency check confirms back on ready, and repairs the
   * workflow breaches it confirms ({@link #repairWorkflows}), each re-checked atomically by its
   * script.
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
    List<Breach> breaches = broker.invariantCheck().breaches();
    for (Breach b : breaches) {
      if (b.kind() == Breach.Kind.ORPHAN_RECORD) {
        OrphanRequeue done = requeueOrphan(b.id());
        if (done == OrphanRequeue.REQUEUED) {
          orphansRequeued++;
        } else if (done == OrphanRequeue.DEAD_LETTERED) {
          orphansDead++;
        }
      }
    }
    return new Admin.RecoverReport(expired.size(), unregistered.size(), requeued, charged, dead, orphansRequeued,
        orphansDead, repairWorkflows(breaches));
  }

  /**
   * One repairWorkflow.lua call per workflow breach: a waiting job nothing will release is
   * released (or failed, by its policy); a waiting entry without a record is removed; a lost batch
   * member is counted; a closed batch with nothing pending is finished. A job in waiting and in
   * another place at once is named, not repaired: which of the two is right cannot be told.
   * Lost members go first: counting one settles the jobs waiting for it, by their policy, as its
   * end would have, where releasing them first would have taken it for done.
   */
  Admin.WorkflowRepairs repairWorkflows(List<Breach> breaches) {
    WorkflowRepair repair = broker.workflows().repair();
    int[] n = new int[WorkflowRepair.Done.values().length];
    Names repaired = new Names();
    Names notRepaired = new Names();
    List<Breach> lostFirst = new ArrayList<>(breaches);
    lostFirst.sort(Comparator.comparing(b -> b.kind() != Breach.Kind.BATCH_MEMBER_LOST));
    for (Breach b : lostFirst) {
      WorkflowRepair.Done done = switch (b.kind()) {
        case WAITING_RELEASABLE -> repair.release(b.id(), "delayq recover");
        case WAITING_WITHOUT_RECORD -> repair.forgetWaiting(b.id());
        case BATCH_MEMBER_LOST -> repair.countLost(b.places().get(0), b.id());
        case BATCH_NOT_FIRED -> repair.finish(b.id());
        case SEVERAL_PLACES -> {
          if (b.places().stream().anyMatch(p -> p.startsWith("waiting"))) {
            notRepaired.add(b.id() + ": in " + String.join(", ", b.places())
                + " at once: not repaired (which place is right cannot be told; cancel the job, or purge it if dead)");
          }
          yield null;
        }
        default -> null;
      };
      if (done == null) {
        continue;
      }
      n[done.ordinal()]++;
      switch (done) {
        case UNCHANGED -> notRepaired.add(b.kind() + " " + b.id() + ": left as it is: no longer so when recover"
            + " looked (a worker, or a repair before it, settled it); delayq check tells whether it still stands");
        case RELEASED -> repaired.add(b.id() + ": released from waiting (every job it waited for had ended)");
        case FAILED -> repaired.add(b.id() + ": dead, as its policy says for a job it waited for that did not end done");
        case FORGOTTEN -> repaired.add(b.id() + ": removed from waiting, with its wait sets (it had no record)");
        case COUNTED -> repaired.add(b.id() + ": counted in batch " + b.places().get(0) + COUNTED_AS);
        case COUNTED_AND_FINISHED -> repaired.add(b.id() + ": counted in batch " + b.places().get(0) + COUNTED_AS
            + "; the batch finished: " + fired(b.places().get(0)));
        case FINISHED -> repaired.add("batch " + b.id() + ": finished: " + fired(b.id()));
      }
    }
    return new Admin.WorkflowRepairs(n[WorkflowRepair.Done.RELEASED.ordinal()], n[WorkflowRepair.Done.FAILED.ordinal()],
        n[WorkflowRepair.Done.FORGOTTEN.ordinal()],
        n[WorkflowRepair.Done.COUNTED.ordinal()] + n[WorkflowRepair.Done.COUNTED_AND_FINISHED.ordinal()],
        n[WorkflowRepair.Done.FINISHED.ordinal()] + n[WorkflowRepair.Done.COUNTED_AND_FINISHED.ordinal()],
        repaired.lines(), notRepaired.lines());
  }

  /** Which callback a finished batch enqueued. */
  private String fired(String batchId) {
    String id = broker.workflows().batch(batchId).map(Workflows.Batch::firedId).orElse(null);
    return id == null ? "it has no callback for how it ended" : "its callback " + id + " enqueued";
  }

  /** At most {@link #NAMED} lines, the last saying how many more there were. */
  private static final class Names {
    private final List<String> lines = new ArrayList<>();
    private int more;

    void add(String line) {
      if (lines.size() < NAMED) {
        lines.add(line);
      } else {
        more++;
      }
    }

    List<String> lines() {
      if (more == 0) {
        return lines;
      }
      List<String> out = new ArrayList<>(lines);
      out.add("and " + more + " more");
      return out;
    }
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
