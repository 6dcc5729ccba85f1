package dev.delayq.spring;

import dev.delayq.HeldJobs;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronization;

/**
 * The enqueues one transaction made, held by {@link AfterCommitGate}: sent together, in their
 * order, once the transaction committed; dropped when it rolled back. A failed send is logged
 * (ids and types, never payloads) and thrown as {@link AfterCommitEnqueueException}: the commit
 * stands, and the exception reaches the code that committed.
 */
final class AfterCommitEnqueues implements TransactionSynchronization {
  private static final Logger log = LoggerFactory.getLogger(AfterCommitEnqueues.class);

  private final AfterCommitGate gate;
  private final List<HeldJobs> held = new ArrayList<>();
  /** Set once the send began: the transaction has committed, so later enqueues need not wait. */
  private boolean sent;

  AfterCommitEnqueues(AfterCommitGate gate) {
    this.gate = gate;
  }

  AfterCommitGate gate() {
    return gate;
  }

  /** Holds {@code jobs}; false when this transaction's jobs already went out (send them at once). */
  boolean add(HeldJobs jobs) {
    if (sent) {
      return false;
    }
    held.add(jobs);
    return true;
  }

  @Override
  public void afterCommit() {
    send();
  }

  @Override
  public void afterCompletion(int status) {
    if (status == STATUS_COMMITTED && !sent) {
      // Spring skips the after-commit callbacks that follow one that threw, and never calls
      // afterCommit on a synchronization registered during afterCommit (an enqueue in an
      // @TransactionalEventListener): afterCompletion still comes for both, so send here. What
      // this throws Spring only logs, so log it ourselves and end there.
      try {
        send();
      } catch (AfterCommitEnqueueException e) {
        // logged by send
      }
    } else if (status != STATUS_COMMITTED && log.isDebugEnabled()) {
      log.debug("delayq: transaction {}: {} held job(s) not enqueued: {}",
          status == STATUS_ROLLED_BACK ? "rolled back" : "ended in an unknown state", ids().size(), ids());
    }
    held.clear();
  }

  private void send() {
    sent = true;
    try {
      HeldJobs.sendInOrder(held);
    } catch (RuntimeException e) {
      AfterCommitEnqueueException failure = new AfterCommitEnqueueException(ids(), types(), e);
      log.error("delayq: {}", failure.getMessage(), e);
      throw failure;
    }
  }

  private List<String> ids() {
    return held.stream().flatMap(h -> h.ids().stream()).toList();
  }

  private List<String> types() {
    return held.stream().flatMap(h -> h.types().stream()).distinct().toList();
  }
}
