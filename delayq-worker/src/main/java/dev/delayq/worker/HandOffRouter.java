package dev.delayq.worker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntPredicate;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * Sends the hand-off of the jobs a consumer claimed behind a handler that runs long (see
 * {@link HandOffBook}) to an idle consumer of its worker: one parked in its queue's
 * {@link IdleGate} or waiting in its queue's {@link ShardWatch}, else, on a worker of several
 * queues, one idle in another queue's (its next claim, in its queue order, may take them). When
 * none idles in the worker but one blocks in Redis on the ready list the jobs would go back to (a
 * queue's only idle consumer takes the gate's turn, or the watch's block on that shard), its own
 * thread makes the call, and the ids it pushes wake that consumer. With no consumer idle nothing
 * is handed off: every one is busy, and the jobs run no sooner elsewhere. Called on the
 * watchdog's thread, which only asks.
 */
final class HandOffRouter {
  /** Per queue of the worker, its consumers by id. */
  private final List<Map<String, Consumer>> consumers = new ArrayList<>();
  /** Per queue, where its idle consumers take a hand-off: true when one will run it. */
  private final List<Predicate<Runnable>> idle = new ArrayList<>();
  /** Per queue, whether a consumer blocks in Redis on the ready list of a shard. */
  private final List<IntPredicate> blockedOn = new ArrayList<>();
  /** Per queue, the shard of a job id. */
  private final List<ToIntFunction<String>> shardOf = new ArrayList<>();
  private final String name;
  /** Makes the calls that no idle consumer can make; started at its first. */
  private ExecutorService sender;
  private boolean closed;

  /** A router of the worker {@code name} (its sender thread's name). */
  HandOffRouter(String name) {
    this.name = name;
  }

  /**
   * Adds a queue: its consumers, the place where its idle ones wait, whether one of them blocks in
   * Redis on a shard's ready list, and the shard of a job id.
   */
  void add(List<Consumer> ofQueue, Predicate<Runnable> idleIn, IntPredicate blockedOnShard,
      ToIntFunction<String> shardOfId) {
    Map<String, Consumer> byId = new HashMap<>();
    ofQueue.forEach(c -> byId.put(c.id(), c));
    consumers.add(byId);
    idle.add(idleIn);
    blockedOn.add(blockedOnShard);
    shardOf.add(shardOfId);
  }

  /** The handler of consumer {@code consumerId} has run long: hands off what it holds behind it, if anything. */
  void slowRun(String consumerId) {
    for (int q = 0; q < consumers.size(); q++) {
      Consumer owner = consumers.get(q).get(consumerId);
      HandOffBook.Ticket ticket = owner == null ? null : owner.handOffTicket();
      if (ticket == null) {
        continue; // (a consumer thread of several queues runs in one of them only)
      }
      Runnable handOff = () -> owner.handOffUnstarted(ticket);
      for (int i = 0; i < idle.size(); i++) {
        if (idle.get((q + i) % idle.size()).test(handOff)) {
          return;
        }
      }
      if (blockedOn.get(q).test(shardOf.get(q).applyAsInt(ticket.batch().get(0).id()))) {
        send(handOff); // (asked again while it waits, the ticket is taken once: the others do nothing)
      }
      return;
    }
  }

  private synchronized void send(Runnable handOff) {
    if (closed) {
      return;
    }
    if (sender == null) {
      sender = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, name + "/hand-off");
        t.setDaemon(true);
        return t;
      });
    }
    sender.execute(handOff);
  }

  /** Stops its sender thread, if it started (the worker drains: its consumers claim no more). */
  synchronized void close() {
    closed = true;
    if (sender != null) {
      sender.shutdown();
    }
  }
}
