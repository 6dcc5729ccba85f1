package dev.delayq.worker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Sends the hand-off of the jobs a consumer claimed behind a handler that runs long (see
 * {@link HandOffBook}) to an idle consumer of its worker: one parked in its queue's
 * {@link IdleGate} or waiting in its queue's {@link ShardWatch}, else, on a worker of several
 * queues, one idle in another queue's (its next claim, in its queue order, may take them). With no
 * consumer idle nothing is handed off: every one is busy, and the jobs run no sooner elsewhere.
 * Called on the watchdog's thread, which only asks: the idle consumer makes the call.
 */
final class HandOffRouter {
  /** Per queue of the worker, its consumers by id. */
  private final List<Map<String, Consumer>> consumers = new ArrayList<>();
  /** Per queue, where its idle consumers take a hand-off: true when one will run it. */
  private final List<Predicate<Runnable>> idle = new ArrayList<>();

  /** Adds a queue: its consumers, and the place where its idle ones wait. */
  void add(List<Consumer> ofQueue, Predicate<Runnable> idleIn) {
    Map<String, Consumer> byId = new HashMap<>();
    ofQueue.forEach(c -> byId.put(c.id(), c));
    consumers.add(byId);
    idle.add(idleIn);
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
      return;
    }
  }
}
