package dev.delayq.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPubSub;

/** holdLease.lua and releaseLease.lua through {@link RedisBroker#holdLease} / {@link RedisBroker#releaseLease}. */
class LeaseScriptsTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());

  private String holder() {
    return broker.redis().get(broker.keys().leader());
  }

  private long ttlMs() {
    return broker.redis().pttl(broker.keys().leader());
  }

  @Test
  void freeLeaseIsTakenWithItsTtl() {
    assertTrue(broker.holdLease("sched-a", 10_000));

    assertEquals("sched-a", holder());
    assertTrue(ttlMs() > 0 && ttlMs() <= 10_000, "ttl " + ttlMs());
  }

  @Test
  void holderRenewsItsLease() {
    broker.holdLease("sched-a", 1_000);

    assertTrue(broker.holdLease("sched-a", 60_000));

    assertEquals("sched-a", holder());
    assertTrue(ttlMs() > 1_000, "renewed to " + ttlMs());
  }

  @Test
  void secondSchedulerStandsByWithoutTouchingTheLease() {
    broker.holdLease("sched-a", 10_000);

    assertFalse(broker.holdLease("sched-b", 60_000));

    assertEquals("sched-a", holder());
    assertTrue(ttlMs() <= 10_000, "not extended by the standby");
  }

  @Test
  void releasedLeaseIsFreeAtOnce() {
    broker.holdLease("sched-a", 10_000);

    assertTrue(broker.releaseLease("sched-a"));

    assertNull(holder());
    assertTrue(broker.holdLease("sched-b", 10_000));
  }

  @Test
  void aReleaseIsAnnouncedOnTheWakeChannelSoStandbysTakeTheLeaseAtOnce() throws Exception {
    broker.holdLease("sched-a", 10_000);
    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    CountDownLatch subscribed = new CountDownLatch(1);
    JedisPubSub standby = new JedisPubSub() {
      @Override
      public void onMessage(String channel, String message) {
        heard.add(channel + " " + message);
      }

      @Override
      public void onSubscribe(String channel, int count) {
        subscribed.countDown();
      }
    };
    Thread listener = new Thread(() -> broker.subscribeToWakes(standby));
    listener.start();
    try {
      assertTrue(subscribed.await(10, TimeUnit.SECONDS));
      assertFalse(broker.releaseLease("sched-b"));
      assertTrue(broker.releaseLease("sched-a"));

      assertEquals(broker.keys().wakeChannel() + " " + RedisBroker.LEASE_RELEASED, heard.poll(5, TimeUnit.SECONDS));
      assertNull(heard.poll(200, TimeUnit.MILLISECONDS), "a release by a non-holder announces nothing: " + heard);
    } finally {
      standby.unsubscribe();
      listener.join(5_000);
    }
  }

  @Test
  void onlyTheHolderCanReleaseTheLease() {
    broker.holdLease("sched-a", 10_000);

    assertFalse(broker.releaseLease("sched-b"));

    assertEquals("sched-a", holder());
    assertFalse(broker.releaseLease("nobody-at-all"));
  }

  @Test
  void expiredLeaseIsTakenByTheStandby() {
    broker.holdLease("sched-a", 50);

    await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10))
        .until(() -> broker.holdLease("sched-b", 10_000));

    assertEquals("sched-b", holder());
    assertFalse(broker.holdLease("sched-a", 10_000));
  }
}
