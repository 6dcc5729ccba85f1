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
    return RedisFixture.get().redis().get(broker.keys().leader());
  }

  private long ttlMs() {
    return RedisFixture.get().redis().pttl(broker.keys().leader());
  }

  @Test
  void freeLeaseIsTakenWithItsTtl() {
    assertTrue(broker.scheduling().holdLease("sched-a", 10_000));

    assertEquals("sched-a", holder());
    assertTrue(ttlMs() > 0 && ttlMs() <= 10_000, "ttl " + ttlMs());
  }

  @Test
  void holderRenewsItsLease() {
    broker.scheduling().holdLease("sched-a", 1_000);

    assertTrue(broker.scheduling().holdLease("sched-a", 60_000));

    assertEquals("sched-a", holder());
    assertTrue(ttlMs() > 1_000, "renewed to " + ttlMs());
  }

  @Test
  void secondSchedulerStandsByWithoutTouchingTheLease() {
    broker.scheduling().holdLease("sched-a", 10_000);

    assertFalse(broker.scheduling().holdLease("sched-b", 60_000));

    assertEquals("sched-a", holder());
    assertTrue(ttlMs() <= 10_000, "not extended by the standby");
  }

  @Test
  void releasedLeaseIsFreeAtOnce() {
    broker.scheduling().holdLease("sched-a", 10_000);

    assertTrue(broker.scheduling().releaseLease("sched-a"));

    assertNull(holder());
    assertTrue(broker.scheduling().holdLease("sched-b", 10_000));
  }

  @Test
  void aReleaseIsAnnouncedOnTheWakeChannelSoStandbysTakeTheLeaseAtOnce() throws Exception {
    broker.scheduling().holdLease("sched-a", 10_000);
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
    Thread listener = new Thread(() -> broker.scheduling().subscribeToWakes(standby));
    listener.start();
    try {
      assertTrue(subscribed.await(10, TimeUnit.SECONDS));
      assertFalse(broker.scheduling().releaseLease("sched-b"));
      assertTrue(broker.scheduling().releaseLease("sched-a"));

      assertEquals(broker.keys().wakeChannel() + " " + SchedulerCalls.LEASE_RELEASED, heard.poll(5, TimeUnit.SECONDS));
      assertNull(heard.poll(200, TimeUnit.MILLISECONDS), "a release by a non-holder announces nothing: " + heard);
    } finally {
      standby.unsubscribe();
      listener.join(5_000);
    }
  }

  @Test
  void onlyTheHolderCanReleaseTheLease() {
    broker.scheduling().holdLease("sched-a", 10_000);

    assertFalse(broker.scheduling().releaseLease("sched-b"));

    assertEquals("sched-a", holder());
    assertFalse(broker.scheduling().releaseLease("nobody-at-all"));
  }

  @Test
  void expiredLeaseIsTakenByTheStandby() {
    broker.scheduling().holdLease("sched-a", 50);

    await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10))
        .until(() -> broker.scheduling().holdLease("sched-b", 10_000));

    assertEquals("sched-b", holder());
    assertFalse(broker.scheduling().holdLease("sched-a", 10_000));
  }
}
