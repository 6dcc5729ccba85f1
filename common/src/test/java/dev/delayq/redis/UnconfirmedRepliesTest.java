package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a call whose replicas fell short tells its retry: a complete (a workflow's or a result's
 * end) that applied on the master is an outcome that landed, so the retry that finds the delivery
 * gone is its echo, not a fence.
 */
class UnconfirmedRepliesTest {
  private static ReplicaAcksException shortOf(Script script, long code) {
    return new ReplicaAcksException(script, 0, new ReplicaAcks(1, 100), List.of(code));
  }

  @Test
  void aCompleteThatAppliedIsAnOutcomeAndAFencedOneIsNot() {
    assertTrue(UnconfirmedReplies.outcome(shortOf(Script.COMPLETE, 1)));
    assertFalse(UnconfirmedReplies.outcome(shortOf(Script.COMPLETE, 0)));
    assertTrue(UnconfirmedReplies.outcome(shortOf(Script.DEAD_LETTER, 1)));
    assertFalse(UnconfirmedReplies.outcome(shortOf(Script.ENQUEUE_FLOW, 1)));
  }
}
