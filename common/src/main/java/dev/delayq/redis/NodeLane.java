package dev.delayq.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.HostAndPort;

/** One node's thread, and whether a call sent on it has not been answered yet. */
final class NodeLane {
  private static final Logger log = LoggerFactory.getLogger(NodeLanes.class);

  final HostAndPort node;
  final ExecutorService thread;
  /** Calls sent on it and not answered yet (queued or running). */
  final AtomicInteger unanswered = new AtomicInteger();
  /** What its calls are answered while it has not answered the one before. */
  final NodeInFlightException inFlight;
  /** Its last call was not answered within the pass's wait (written by the lane and, on a timeout, the caller). */
  volatile boolean slow;
  /** Whether a WARN says it is hung; an INFO ends it (the lane's thread only, but for the first overrun). */
  private final AtomicBoolean said = new AtomicBoolean();

  NodeLane(HostAndPort node) {
    this.node = node;
    this.inFlight = new NodeInFlightException(node);
    // one thread, ended after a minute without calls (a node that left the cluster keeps none)
    ThreadPoolExecutor one = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, "delayq-node-" + node);
      t.setDaemon(true);
      return t;
    });
    one.allowCoreThreadTimeOut(true);
    this.thread = one;
  }

  /**
   * Whether a call may go on this lane now. A call that changes something goes only when none
   * before it is unanswered: one at a time per node, so never twice at once for a shard. Reads
   * (the lengths beside claims, from many consumers at once) queue behind one another, unless
   * the node overran its last call: then they would only wait for it.
   */
  boolean take(boolean readOnly) {
    if (readOnly) {
      if (slow && unanswered.get() > 0) {
        return false;
      }
      unanswered.incrementAndGet();
      return true;
    }
    return unanswered.compareAndSet(0, 1);
  }

  void overran() {
    slow = true;
    if (said.compareAndSet(false, true)) {
      log.warn("Redis Cluster node {} has not answered within {} ms; its shards are held back (not sent "
          + "again) until it answers, the other nodes' go on", node, NodeLanes.ANSWER_WITHIN_NANOS / 1_000_000);
    }
  }

  /** Runs one node's calls; they count as answered before their answer is given, so the next may go at once. */
  <T> void run(CompletableFuture<T[]> answer, java.util.function.Supplier<T[]> calls) {
    long started = System.nanoTime();
    T[] out;
    try {
      out = calls.get();
    } catch (RuntimeException | Error e) {
      unanswered.decrementAndGet();
      answer.completeExceptionally(e);
      return;
    }
    long tookNanos = System.nanoTime() - started;
    slow = tookNanos > NodeLanes.ANSWER_WITHIN_NANOS;
    if (!slow && said.compareAndSet(true, false)) {
      log.info("Redis Cluster node {} answers again", node);
    }
    unanswered.decrementAndGet();
    answer.complete(out);
  }
}
