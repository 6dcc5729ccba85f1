package dev.delayq.supervisor;

import dev.delayq.process.ChildEnvironment;
import dev.delayq.process.RunningFile;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.Recovery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Returns the in-flight jobs of a worker process to {@code ready} the moment the supervisor
 * sees it exit, instead of after its heartbeats expire, by the one {@link Recovery} policy: the
 * job whose handler was running counts an attempt and a lost delivery, the others go back as
 * they were. Which job was running, the worker's crash record ({@link RunningFile}, in the run
 * directory) says exactly, however the process died. Safe because the process is gone: no late
 * outcome can come from it, and its deliveries are fenced anyway. A recovery that fails (Redis
 * down) is kept and retried on every tick until it succeeds.
 */
public final class InstantRecovery {
  private static final Logger log = LoggerFactory.getLogger(InstantRecovery.class);
  private static final Duration MAX_RETRY_WAIT = Duration.ofSeconds(10);

  /** One dead worker process whose jobs are still to be taken back. */
  record Gone(String childName, String host, long pid, int exitCode) {
    String consumerPrefix() {
      return ChildEnvironment.consumerPrefix(childName, host, pid);
    }

    String reason() {
      return childName + " (pid " + pid + ") exited with code " + exitCode;
    }

    /** Consumer id -> what its slot of the crash record says (running, finished); empty without one. */
    Optional<Map<String, RunningFile.Slot>> crashRecord(Path runDir) {
      Path path = RunningFile.pathFor(runDir, childName, pid);
      if (!RunningFile.exists(path)) {
        return Optional.empty();
      }
      Map<String, RunningFile.Slot> slots = new HashMap<>();
      RunningFile.readSlots(path).forEach((slot, s) -> slots.put(consumerPrefix() + (slot + 1), s));
      return Optional.of(slots);
    }
  }

  private final List<Recovery> recoveries;
  private final Path runDir;
  private final String host;
  private final Deque<Gone> pending = new ArrayDeque<>();
  private boolean failing;
  private long retryAt;
  private Duration retryWait = Duration.ofSeconds(1);

  /**
   * {@code host}: this host's name, as its workers put it in their consumer ids; {@code runDir}:
   * where they keep their crash records.
   */
  public InstantRecovery(RedisBroker broker, Inspector inspector, int poisonAt, String host, Path runDir) {
    this(List.of(new Recovery(broker, inspector, poisonAt)), host, runDir);
  }

  /**
   * One recovery per queue the workers serve: a worker of several queues has in-flight lists in
   * each, and the crash record's running job is charged in the queue whose list holds it.
   */
  public InstantRecovery(List<Recovery> perQueue, String host, Path runDir) {
    this.recoveries = List.copyOf(perQueue);
    this.host = host;
    this.runDir = runDir;
  }

  /** Takes back the jobs of a worker process that just exited (from the control thread). */
  void workerGone(String childName, long pid, int exitCode, long now) {
    pending.addLast(new Gone(childName, host, pid, exitCode));
    retryAt = now;
    retryPending(now);
  }

  /**
   * Retries every recovery not done yet; cheap when there is none. After a failure it waits
   * 1 s, doubling up to 10 s, so an unreachable Redis does not stall the control thread on
   * every tick with connect timeouts.
   */
  void retryPending(long now) {
    if (pending.isEmpty() || now - retryAt < 0) {
      return;
    }
    while (!pending.isEmpty()) {
      Gone gone = pending.peekFirst();
      try {
        recover(gone);
        pending.pollFirst();
        retryWait = Duration.ofSeconds(1);
        if (failing) {
          failing = false;
          log.info("instant recovery works again ({} more waiting)", pending.size());
        }
      } catch (RuntimeException e) {
        retryAt = now + retryWait.toNanos();
        retryWait = retryWait.multipliedBy(2).compareTo(MAX_RETRY_WAIT) > 0 ? MAX_RETRY_WAIT : retryWait.multipliedBy(2);
        if (!failing) {
          failing = true;
          log.warn("instant recovery of {} failed, retrying every tick (the scheduler's recoverer "
              + "takes over after the heartbeat expiry if this keeps failing): {}", gone.reason(), e.toString());
        }
        return;
      }
    }
  }

  boolean idle() {
    return pending.isEmpty();
  }

  private void recover(Gone gone) {
    long started = System.nanoTime();
    List<Recovery.TakenBack> takenBack = new java.util.ArrayList<>();
    Optional<Map<String, RunningFile.Slot>> crashRecord = gone.crashRecord(runDir);
    for (Recovery recovery : recoveries) {
      // a retry after a failure in a later queue finds the earlier queues' lists empty already
      takenBack.addAll(recovery.processGone(gone.consumerPrefix(), gone.reason(), gone.exitCode() != 0, crashRecord));
    }
    RunningFile.pathFor(runDir, gone.childName(), gone.pid()).toFile().delete();
    long ms = (System.nanoTime() - started) / 1_000_000;
    int uncharged = 0;
    int charged = 0;
    int dead = 0;
    for (Recovery.TakenBack t : takenBack) {
      uncharged += t.result().uncharged();
      charged += t.result().charged();
      dead += t.result().deadLettered();
    }
    if (uncharged + charged > 0) {
      log.warn("{}: {} in-flight job(s) back: {} unstarted, uncounted; {} that was running charged "
          + "an attempt, {} of them dead-lettered (poison pill or attempts used up) ({} ms)",
          gone.reason(), uncharged + charged, uncharged, charged, dead, ms);
    } else if (gone.exitCode() != 0) {
      log.info("{}: no job was in flight", gone.reason());
    }
  }
}
