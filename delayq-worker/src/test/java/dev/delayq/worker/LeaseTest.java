package dev.delayq.worker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link Lease}, on crafted times. */
class LeaseTest {
  private static final long S = 1_000_000_000L;

  @Test
  void noLeaseBeforeTheFirstConfirmedHeartbeat() {
    assertFalse(Lease.forHeartbeat(30 * S, 5 * S).holds(System.nanoTime()));
  }

  @Test
  void aLeaseHoldsUntilTheTtlLessItsMarginFromWhenTheHeartbeatWasSent() {
    Lease lease = Lease.forHeartbeat(30 * S, 5 * S); // margin: a fifth of 30 s, at least 5 s: 6 s
    lease.renewed(100 * S);

    assertTrue(lease.holds(100 * S));
    assertTrue(lease.holds(123 * S));
    assertFalse(lease.holds(124 * S), "a take-back is possible 30 s after the beat was sent; 6 s to spare");
  }

  @Test
  void aLateAnswerToAnOlderHeartbeatDoesNotShortenTheLease() {
    Lease lease = Lease.forHeartbeat(30 * S, 5 * S);
    lease.renewed(200 * S);
    lease.renewed(190 * S);

    assertTrue(lease.holds(223 * S));
  }

  @Test
  void aLeaseRenewedAfterItLapsedIsANewOneThatCoversNothingClaimedBefore() {
    Lease lease = Lease.forHeartbeat(30 * S, 5 * S);
    lease.renewed(100 * S);
    int claimedUnder = lease.epoch();
    lease.renewed(105 * S);
    assertTrue(lease.holdsSince(claimedUnder, 106 * S), "renewed in time: the same lease");

    lease.renewed(160 * S); // the process was stopped for a minute; its jobs may be gone

    assertTrue(lease.holds(161 * S));
    assertFalse(lease.holdsSince(claimedUnder, 161 * S));
    assertTrue(lease.holdsSince(lease.epoch(), 161 * S));
  }

  @Test
  void theMarginIsAtLeastOneHeartbeatInterval() {
    Lease lease = Lease.forHeartbeat(2 * S, S / 2); // a fifth is 0.4 s, the interval 0.5 s
    lease.renewed(0);

    assertTrue(lease.holds(S + S / 2 - 1));
    assertFalse(lease.holds(S + S / 2));
  }
}
