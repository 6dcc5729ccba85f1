package dev.delayq.supervisor;

import dev.delayq.process.ChildEnvironment;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Returns the in-flight jobs of a worker process to {@code ready} the moment the supervisor
 * sees it exit, instead of after its heartbeats expire. Safe because the process is gone: no
 * late acknowledgement can come from it, and the requeue script fences its consumers anyway.
 * A recovery that fails (Redis down) is kept and retried on every tick until it succeeds.
 */
final class InstantRecovery {
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
  }

  private final RedisBroker broker;
  private final Inspector inspector;
  private final int poisonAt;
  private final String host;
  private final Deque<Gone> pending = new ArrayDeque<>();
  private boolean failing;
  private long retryAt;
  private Duration retryWait = Duration.ofSeconds(1);

  /** {@code host}: this host's name, as its workers put it in their consumer ids. */
  InstantRecovery(RedisBroker broker, Inspector inspector, int poisonAt, String host) {
    this.host = host;
    this.broker = broker;
    this.inspector = inspector;
    this.poisonAt = poisonAt;
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
    RedisBroker.Requeued registered =
        broker.requeueConsumersOf(gone.consumerPrefix(), gone.reason(), poisonAt);
    int requeued = registered.requeued();
    int dead = registered.deadLettered();
    // A consumer can hold a job in its in-flight list before it is registered (claimed, then
    // died before its first heartbeat): after a crash, sweep the lists themselves too. SCAN
    // walks the whole keyspace, so not after a clean drain, which left nothing behind.
    List<String> unregistered = gone.exitCode() == 0 ? List.of() : unregisteredConsumers(gone.consumerPrefix());
    for (String consumer : unregistered) {
      RedisBroker.Requeued r = broker.requeueInFlight(consumer, RedisBroker.RequeueMode.GONE, gone.reason(), poisonAt);
      requeued += r.requeued();
      dead += r.deadLettered();
    }
    long ms = (System.nanoTime() - started) / 1_000_000;
    if (requeued + dead > 0) {
      log.warn("{}: {} in-flight job(s) back to ready, {} dead-lettered (poison pill or attempts used up) ({} ms)",
          gone.reason(), requeued, dead, ms);
    } else if (gone.exitCode() != 0) {
      log.info("{}: no job was in flight", gone.reason());
    }
  }

  private List<String> unregisteredConsumers(String prefix) {
    return inspector.unregisteredConsumers().stream().filter(c -> c.startsWith(prefix)).toList();
  }
}
