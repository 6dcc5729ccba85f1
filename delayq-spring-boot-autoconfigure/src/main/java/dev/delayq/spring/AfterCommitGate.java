package dev.delayq.spring;

import dev.delayq.EnqueueGate;
import dev.delayq.HeldJobs;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Holds the enqueues made inside a Spring-managed transaction until it commits, and sends them
 * then, in their order; a rollback drops them. Outside a transaction it lets every enqueue go at
 * once. The held jobs live in a synchronization of the transaction itself, so a REQUIRES_NEW
 * transaction inside another sends its own jobs at its own commit.
 *
 * <p>Workflow calls (a job that waits for others or is awaitable, batches, chain, fan-in) are not
 * offered to this gate: they go to Redis at once, inside a transaction too, and a rollback does not
 * take them back (see {@link EnqueueGate}). Make them after the commit where that matters, for
 * example from an {@code @TransactionalEventListener}.
 */
final class AfterCommitGate implements EnqueueGate {

  @Override
  public boolean hold(HeldJobs jobs) {
    // synchronization alone (PROPAGATION_SUPPORTS with no transaction) also runs without one: the
    // app's writes are already committed there, so the enqueue need not wait
    if (!TransactionSynchronizationManager.isSynchronizationActive()
        || !TransactionSynchronizationManager.isActualTransactionActive()) {
      return false;
    }
    return enqueuesOfThisTransaction().add(jobs);
  }

  private AfterCommitEnqueues enqueuesOfThisTransaction() {
    for (TransactionSynchronization s : TransactionSynchronizationManager.getSynchronizations()) {
      if (s instanceof AfterCommitEnqueues e && e.gate() == this) {
        return e;
      }
    }
    AfterCommitEnqueues e = new AfterCommitEnqueues(this);
    TransactionSynchronizationManager.registerSynchronization(e);
    return e;
  }
}
