package dev.delayq.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.awaitility.Awaitility.await;

import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link ShardLeases} on a real Redis. */
class ShardLeasesTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());

  private String holder() {
    return RedisFixture.get().redis().get(broker.keys().leader());
  }

  private long pttl() {
    return RedisFixture.get().redis().pttl(broker.keys().leader());
  }

  @Test
  void firstTickTakesTheLease() {
    ShardLeases lease = new ShardLeases(broker, "a", 30_000);
    long before = System.nanoTime();

    assertTrue(lease.tick());

    long ttl = pttl();
    long sinceTickMs = (System.nanoTime() - before) / 1_000_000;
    assertTrue(lease.isHeld());
    assertEquals("a", holder());
    // set to 30 s during the tick: at most that much has run off since (however long a loaded host took)
    assertTrue(ttl >= 30_000 - sinceTickMs - 1 && ttl <= 30_000, "ttl " + ttl + ", " + sinceTickMs + " ms after the tick");
  }

  @Test
  void secondOwnerDoesNotTakeAHeldLease() {
    ShardLeases a = new ShardLeases(broker, "a", 30_000);
    ShardLeases b = new ShardLeases(broker, "b", 30_000);
    a.tick();

    assertFalse(b.tick());

    assertFalse(b.isHeld());
    assertEquals("a", holder());
  }

  @Test
  void releaseLetsTheOtherOwnerTakeItAtOnce() {
    ShardLeases a = new ShardLeases(broker, "a", 30_000);
    ShardLeases b = new ShardLeases(broker, "b", 30_000);
    a.tick();
    assertFalse(b.tick());

    a.release();

    assertFalse(a.isHeld());
    assertTrue(b.tick());
    assertEquals("b", holder());
  }

  @Test
  void releaseByAStandbyLeavesTheLeaderAlone() {
    ShardLeases a = new ShardLeases(broker, "a", 30_000);
    ShardLeases b = new ShardLeases(broker, "b", 30_000);
    a.tick();
    b.tick();

    b.release();

    assertEquals("a", holder());
  }

  @Test
  void tickBetweenRenewalsDoesNotCallRedis() {
    ShardLeases lease = new ShardLeases(broker, "a", 30_000);
    lease.tick();
    await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(5)).until(() -> pttl() < 29_950);
    long ttlBefore = pttl();

    assertTrue(lease.tick());

    assertTrue(pttl() <= ttlBefore, "a renewal would have reset the ttl to 30000, it is " + pttl());
  }

  @Test
  void tickRenewsTheLeaseAfterAThirdOfItsTtl() {
    ShardLeases lease = new ShardLeases(broker, "a", 900);
    long before = System.nanoTime();
    lease.tick();
    long after = System.nanoTime();
    long renewAt = lease.nextTickNanos();
    // a third of the ttl after the moment the tick began, which lies between before and after
    assertTrue(renewAt - before >= 300_000_000L && renewAt - after <= 300_000_000L,
        "renewal due " + (renewAt - before) / 1_000_000 + " ms after the first tick began, which took "
            + (after - before) / 1_000_000 + " ms");
    await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(5))
        .until(() -> System.nanoTime() - renewAt >= 0);
    long renewing = System.nanoTime();

    assertTrue(lease.tick());

    long ttl = pttl();
    long sinceRenewalMs = (System.nanoTime() - renewing) / 1_000_000;
    // unrenewed it would have at most 600 ms left; renewed, 900 less what has run off since
    assertTrue(ttl >= 900 - sinceRenewalMs - 1, "renewed to 900 ms, left " + ttl + " " + sinceRenewalMs + " ms later");
    assertTrue(lease.nextTickNanos() - renewAt >= 300_000_000L);
  }

  @Test
  void standbyTakesTheLeaseOnceItLapses() {
    // a's 1 s is long enough that a loaded host does not let it lapse between a's tick and b's
    ShardLeases a = new ShardLeases(broker, "a", 1_000);
    ShardLeases b = new ShardLeases(broker, "b", 30_000);
    a.tick();
    assertFalse(b.tick());

    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(b::tick);

    assertEquals("b", holder());
  }
}
