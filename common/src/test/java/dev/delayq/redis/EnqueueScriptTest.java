package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.at;
import static dev.delayq.testing.QueueProbe.delayed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPubSub;

/** enqueue.lua through {@link RedisBroker#enqueue} and {@link RedisBroker#enqueueAll}. */
class EnqueueScriptTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  @Test
  void delayedJobIsStoredInDelayedWithItsRecord() {
    long before = probe.redisNowMs();
    Enqueued e = broker.enqueue(delayed("j1", "{\"order_id\":1001}", 60_000));
    long after = probe.redisNowMs();

    assertTrue(e.accepted());
    assertFalse(e.duplicate());
    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertEquals(e.dueAt(), probe.dueAt("j1"));
    JsonNode r = probe.record("j1");
    assertEquals(QueueProbe.TYPE, r.get("type").asText());
    assertEquals(QueueProbe.MAX_ATTEMPTS, r.get("maxAttempts").asInt());
    assertEquals(1, r.get("attempt").asInt());
    long createdAt = r.get("createdAt").asLong();
    assertTrue(createdAt >= before && createdAt <= after, "createdAt comes from Redis TIME");
    assertEquals(e.dueAt(), r.get("dueAt").asLong());
    assertEquals(1001, r.get("payload").get("order_id").asInt());
    assertTrue(probe.rawRecord("j1").endsWith(",\"p\":{\"order_id\":1001}}"), "payload is the last member");
    assertEquals(1, probe.recordCount());
    assertEquals(List.of(), probe.readyIds());
    assertEquals(List.of(), probe.deadIds());
  }

  @Test
  void duplicateIdChangesNothingAndSaysSo() {
    Enqueued first = broker.enqueue(delayed("j1", "{\"v\":1}", 60_000));
    String record = probe.rawRecord("j1");

    Enqueued second = broker.enqueue(delayed("j1", "{\"v\":2}", 1_000));

    assertTrue(first.accepted());
    assertTrue(second.duplicate());
    assertEquals(-1, second.dueAt());
    assertEquals(record, probe.rawRecord("j1"));
    assertEquals(first.dueAt(), probe.dueAt("j1"));
    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertEquals(1, probe.recordCount());
    assertEquals(1, probe.wakeTokens());
  }

  @Test
  void idOfARunningJobIsStillADuplicate() {
    probe.seedInFlight("c1", "j1");
    String record = probe.rawRecord("j1");

    assertTrue(broker.enqueue(delayed("j1", "{\"v\":2}", 0)).duplicate());

    assertEquals(List.of("inflight:c1"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"));
  }

  @Test
  void delayIsCountedFromRedisTime() {
    long before = probe.redisNowMs();
    Enqueued e = broker.enqueue(delayed("j1", "{}", 90_000));
    long after = probe.redisNowMs();

    JsonNode r = probe.record("j1");
    assertEquals(r.get("createdAt").asLong() + 90_000, e.dueAt());
    assertTrue(e.dueAt() >= before + 90_000 && e.dueAt() <= after + 90_000);
  }

  @Test
  void scheduleKeepsTheAbsoluteDueTime() {
    long dueAt = probe.redisNowMs() + 3_600_123;

    Enqueued e = broker.enqueue(at("j1", "{}", dueAt));

    assertEquals(dueAt, e.dueAt());
    assertEquals(dueAt, probe.dueAt("j1"));
    assertEquals(dueAt, probe.record("j1").get("dueAt").asLong());
    assertTrue(probe.record("j1").get("createdAt").asLong() < dueAt - 3_600_000);
  }

  @Test
  void alreadyDueJobWithNothingOlderWaitingGoesStraightToReady() {
    long past = probe.redisNowMs() - 5_000;

    Enqueued e = broker.enqueue(at("j1", "{}", past));

    assertEquals(past, e.dueAt());
    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(past, probe.record("j1").get("dueAt").asLong());
    assertEquals(0, probe.wakeTokens(), "the scheduler has nothing to do for it");
  }

  @Test
  void zeroDelayGoesStraightToReady() {
    broker.enqueue(delayed("j1", "{}", 0));

    assertEquals(List.of("ready"), probe.placesOf("j1"));
  }

  @Test
  void alreadyDueJobGoesToReadyWhenOnlyFutureJobsAreDelayed() {
    probe.seedDelayed("later", 60_000);

    broker.enqueue(at("j1", "{}", probe.redisNowMs() - 1_000));

    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(List.of("delayed"), probe.placesOf("later"));
  }

  @Test
  void alreadyDueJobWaitsInDelayedWhileAnOlderDueJobIsThere() {
    long headDue = broker.enqueue(at("head", "{}", probe.redisNowMs() + 150)).dueAt();
    assertEquals(List.of("delayed"), probe.placesOf("head"));
    probe.awaitRedisTimePast(headDue);

    broker.enqueue(at("j1", "{}", probe.redisNowMs() - 10_000));

    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertEquals(List.of("j1", "head"), probe.delayedIds(), "forwarded in due order later");
    assertEquals(List.of(), probe.readyIds());
  }

  @Test
  void wakeTokenIsPushedOnlyWhenTheJobBecomesTheHead() {
    broker.enqueue(delayed("ten", "{}", 600_000));
    assertEquals(1, probe.wakeTokens(), "first delayed job is the head");
    assertTrue(broker.scheduling().awaitWake(1.0), "the scheduler takes the token");

    broker.enqueue(delayed("twenty", "{}", 1_200_000));
    assertEquals(0, probe.wakeTokens(), "a later job does not change the head");

    broker.enqueue(delayed("five", "{}", 300_000));
    assertEquals(1, probe.wakeTokens(), "an earlier job is the new head");
  }

  @Test
  void everyNewHeadIsPublishedOnTheWakeChannelEvenWhileATokenWaits() throws Exception {
    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    CountDownLatch subscribed = new CountDownLatch(1);
    JedisPubSub standby = new JedisPubSub() {
      @Override
      public void onMessage(String channel, String dueAt) {
        heard.add(channel + " " + dueAt);
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
      long ten = broker.enqueue(delayed("ten", "{}", 600_000)).dueAt();
      broker.enqueue(delayed("twenty", "{}", 1_200_000));
      long five = broker.enqueue(delayed("five", "{}", 300_000)).dueAt();

      String channel = broker.keys().wakeChannel();
      assertEquals(channel + " " + ten, heard.poll(5, TimeUnit.SECONDS));
      assertEquals(channel + " " + five, heard.poll(5, TimeUnit.SECONDS), "published though the token of 'ten' waits");
      assertNull(heard.poll(200, TimeUnit.MILLISECONDS), "a later job changes no head: " + heard);
      assertEquals(1, probe.wakeTokens());
      assertEquals(0, broker.scheduling().shardOfWakeChannel(channel));
    } finally {
      standby.unsubscribe();
      listener.join(5_000);
    }
  }

  @Test
  void atMostOneWakeTokenWaits() {
    broker.enqueue(delayed("ten", "{}", 600_000));
    broker.enqueue(delayed("five", "{}", 300_000));
    broker.enqueue(delayed("one", "{}", 60_000));

    assertEquals(1, probe.wakeTokens());
  }

  @Test
  void payloadIsStoredByteForByte() {
    String payload = "{\"big\":12345678901234567890,\"text\":\"héllo ✓ 日本\",\"tricky\":\",\\\"payload\\\":\","
        + "\"f\":1.50,\"e\":2e3}";

    broker.enqueue(delayed("j1", payload, 60_000));

    assertTrue(probe.rawRecord("j1").endsWith(",\"p\":" + payload + "}"), probe.rawRecord("j1"));
    assertEquals("12345678901234567890", probe.record("j1").get("payload").get("big").bigIntegerValue().toString());
  }

  @Test
  void batchEnqueueAcceptsEachJobAndReportsDuplicates() {
    probe.seedDelayed("old", 60_000);

    List<Enqueued> replies = broker.enqueueAll(List.of(
        delayed("a", "{}", 60_000), delayed("old", "{}", 1), delayed("b", "{}", 0), delayed("a", "{}", 5)));

    assertEquals(List.of(true, false, true, false),
        replies.stream().map(Enqueued::accepted).toList());
    assertEquals(List.of("delayed"), probe.placesOf("a"));
    assertEquals(List.of("delayed"), probe.placesOf("old"));
    assertEquals(List.of("ready"), probe.placesOf("b"));
    assertEquals(3, probe.recordCount());
    assertNull(probe.dueAt("b"));
  }
}
