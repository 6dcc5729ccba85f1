package dev.delayq.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link IdleGate}: which idle consumer blocks in Redis, which park, and who is woken for what. */
class IdleGateTest {
  private static final long LONG = TimeUnit.SECONDS.toNanos(30);

  private final IdleGate gate = new IdleGate();

  /** An idle consumer asking for its turn on a thread of its own. */
  private CompletableFuture<IdleGate.Turn> idle() {
    return CompletableFuture.supplyAsync(() -> gate.awaitTurn(LONG), r -> new Thread(r).start());
  }

  private void awaitParked(int n) {
    await().atMost(Duration.ofSeconds(5)).until(() -> gate.parked() == n);
  }

  @Test
  void oneBlocksInRedisAndTheNextParksUntilTheTurnIsFree() throws Exception {
    assertTrue(gate.awaitTurn(LONG).block());
    CompletableFuture<IdleGate.Turn> second = idle();
    awaitParked(1);
    assertFalse(second.isDone());

    gate.woke(0); // its wait ended and left nothing in ready

    IdleGate.Turn turn = second.get(5, TimeUnit.SECONDS);
    assertTrue(turn.block(), "the parked one takes the turn");
    assertEquals(1, gate.blocking());
  }

  @Test
  void jobsLeftInReadyWakeAsManyParkedOnesToClaimAndOneTakesTheTurn() throws Exception {
    assertTrue(gate.awaitTurn(LONG).block());
    List<CompletableFuture<IdleGate.Turn>> parked = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      parked.add(idle());
    }
    awaitParked(4);

    gate.woke(2);

    await().atMost(Duration.ofSeconds(5)).until(() -> parked.stream().filter(CompletableFuture::isDone).count() == 3);
    long claim = parked.stream().filter(CompletableFuture::isDone).filter(f -> !f.join().block()).count();
    assertEquals(2, claim, "two to claim what was left");
    assertEquals(1, gate.blocking(), "and one to wait in Redis");
    assertEquals(1, gate.parked(), "the fourth sleeps on");
  }

  @Test
  void aClaimThatCannotTellWakesEveryParkedOne() {
    assertTrue(gate.awaitTurn(LONG).block());
    List<CompletableFuture<IdleGate.Turn>> parked = List.of(idle(), idle(), idle());
    awaitParked(3);

    gate.leftWaiting(-1);

    await().atMost(Duration.ofSeconds(5)).until(() -> parked.stream().allMatch(CompletableFuture::isDone));
    assertTrue(parked.stream().noneMatch(f -> f.join().block()));
  }

  @Test
  void aHandOffRunsOnAParkedConsumerAndNoneIsAskedWhenNoneIsIdle() throws Exception {
    Runnable handOff = () -> { };
    gate.handOff(handOff); // nobody parked: nobody idle to run what it would hand off
    assertTrue(gate.awaitTurn(LONG).block(), "the asked hand-off was dropped");

    CompletableFuture<IdleGate.Turn> parked = idle();
    awaitParked(1);
    gate.handOff(handOff);

    IdleGate.Turn turn = parked.get(5, TimeUnit.SECONDS);
    assertSame(handOff, turn.handOff());
    assertFalse(turn.block(), "then it claims");
  }

  @Test
  void aParkedConsumerLooksForItselfAfterItsTimeout() {
    assertTrue(gate.awaitTurn(LONG).block());

    IdleGate.Turn turn = gate.awaitTurn(TimeUnit.MILLISECONDS.toNanos(20));

    assertFalse(turn.block());
    assertNull(turn.handOff());
    assertEquals(0, gate.parked());
  }
}
