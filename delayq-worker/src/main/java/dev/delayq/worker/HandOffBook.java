package dev.delayq.worker;

import dev.delayq.redis.Claimed;
import java.util.List;

/**
 * What one consumer has committed to run, and the hand-off of the claimed jobs behind it to idle
 * consumers ({@link IdleGate}). The consumer's thread commits to each job before it starts it;
 * another consumer's thread may hand off the jobs after the committed one while it runs. The
 * hand-off moves NONE to SENDING to SENT or FAILED on that other thread, and back to NONE when
 * the owner next commits; a commit waits while a hand-off is being sent, so the owner never
 * starts a job that is on its way back to ready.
 */
final class HandOffBook {
  /** Where a hand-off of the jobs behind the committed one stands. */
  private enum HandOff { NONE, SENDING, SENT, FAILED }

  /** What a commit to a batch's next job found. */
  enum Commit {
    /** The job is the consumer's to start. */
    COMMITTED,
    /** It went back to ready with the rest of the batch: drop the batch. */
    HANDED_OFF,
    /** Its hand-off failed, or the wait for it was interrupted: drop the batch, and give back what was not started. */
    UNSURE
  }

  /** A look at the jobs a consumer holds behind the one it runs: what {@link #takeForHandOff} hands off. */
  record Ticket(List<Claimed> batch, int committed) {}

  /** The batch of the job last committed to, and that job's index in it. */
  private List<Claimed> committedBatch = List.of();
  private int committed;
  private HandOff handOff = HandOff.NONE;

  /**
   * Commits to run {@code batch}'s job at {@code next}, unless another consumer handed it off
   * (with the rest) while the job before ran; waits first for a hand-off being sent. The owner's
   * thread only.
   */
  synchronized Commit commit(List<Claimed> batch, int next) {
    try {
      while (handOff == HandOff.SENDING) {
        wait();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Commit.UNSURE; // the hand-off's outcome is not known
    }
    HandOff h = handOff;
    handOff = HandOff.NONE;
    if (h != HandOff.NONE && committedBatch == batch) {
      return h == HandOff.FAILED ? Commit.UNSURE : Commit.HANDED_OFF;
    }
    committedBatch = batch;
    committed = next;
    return Commit.COMMITTED;
  }

  /**
   * A ticket for the claimed jobs held behind the committed one, or null when there are none (the
   * batch's last runs) or {@code running} is false. Any thread.
   */
  synchronized Ticket ticket(boolean running) {
    return running && holdsJobsBehind() ? new Ticket(committedBatch, committed) : null;
  }

  /**
   * The jobs behind the committed one to hand off now, the hand-off marked as being sent; null
   * when the owner has moved on since {@code ticket} was taken. The caller then calls
   * {@link #sent} whatever happens.
   */
  synchronized List<Claimed> takeForHandOff(Ticket ticket) {
    if (committedBatch != ticket.batch() || committed != ticket.committed() || !holdsJobsBehind()) {
      return null;
    }
    handOff = HandOff.SENDING;
    return committedBatch.subList(committed + 1, committedBatch.size());
  }

  /** The hand-off {@link #takeForHandOff} marked has been sent ({@code ok}) or failed. */
  synchronized void sent(boolean ok) {
    handOff = ok ? HandOff.SENT : HandOff.FAILED;
    notifyAll();
  }

  /** Claimed jobs wait behind the committed one, and no hand-off of them is under way. */
  private boolean holdsJobsBehind() {
    return handOff == HandOff.NONE && committed + 1 < committedBatch.size();
  }
}
