package dev.delayq.worker;

import dev.delayq.redis.Claimed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The owner's commits against another thread's hand-off of the jobs behind the committed one. */
class HandOffBookTest {
  private final HandOffBook book = new HandOffBook();

  /** A batch of n claimed jobs: the book looks only at its size and identity. */
  private static List<Claimed> batch(int n) {
    return Arrays.asList(new Claimed[n]);
  }

  @Test
  void jobsBehindTheCommittedOneAreOfferedAndOnceSentTheOwnerDropsTheBatch() {
    List<Claimed> batch = batch(4);
    assertEquals(HandOffBook.Commit.COMMITTED, book.commit(batch, 1));

    HandOffBook.Ticket ticket = book.ticket(true);
    List<Claimed> rest = book.takeForHandOff(ticket);
    book.sent(true);

    assertEquals(2, rest.size(), "the two after the committed one");
    assertNull(book.ticket(true), "nothing more to hand off while that one is out");
    assertEquals(HandOffBook.Commit.HANDED_OFF, book.commit(batch, 2));
    assertEquals(HandOffBook.Commit.COMMITTED, book.commit(batch(2), 0), "a new batch is the owner's");
  }

  @Test
  void aFailedHandOffLeavesTheOwnerUnsure() {
    List<Claimed> batch = batch(3);
    book.commit(batch, 0);
    assertNotNull(book.takeForHandOff(book.ticket(true)));
    book.sent(false);

    assertEquals(HandOffBook.Commit.UNSURE, book.commit(batch, 1));
  }

  @Test
  void noTicketForTheBatchesLastJobOrWhenNothingRuns() {
    List<Claimed> batch = batch(2);
    book.commit(batch, 1);
    assertNull(book.ticket(true), "the last job runs: none behind it");
    book.commit(batch(3), 0);
    assertNull(book.ticket(false), "nothing runs");
  }

  @Test
  void aTicketTakenBeforeTheOwnerMovedOnHandsOffNothing() {
    List<Claimed> batch = batch(4);
    book.commit(batch, 0);
    HandOffBook.Ticket stale = book.ticket(true);
    assertEquals(HandOffBook.Commit.COMMITTED, book.commit(batch, 1));

    assertNull(book.takeForHandOff(stale));
    HandOffBook.Ticket fresh = book.ticket(true);
    assertSame(batch, fresh.batch());
    assertEquals(2, book.takeForHandOff(fresh).size());
  }

  @Test
  void aCommitWaitsWhileAHandOffIsBeingSent() throws Exception {
    List<Claimed> batch = batch(3);
    book.commit(batch, 0);
    book.takeForHandOff(book.ticket(true));

    CompletableFuture<HandOffBook.Commit> commit = CompletableFuture.supplyAsync(() -> book.commit(batch, 1));
    Thread.sleep(100);
    assertFalse(commit.isDone(), "the owner does not start a job on its way back to ready");
    book.sent(true);

    assertEquals(HandOffBook.Commit.HANDED_OFF, commit.get(5, TimeUnit.SECONDS));
  }
}
