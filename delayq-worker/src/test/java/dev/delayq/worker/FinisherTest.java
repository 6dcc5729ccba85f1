package dev.delayq.worker;

import dev.delayq.redis.RequeueMode;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.process.RedisOutage;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.Keys;
import dev.delayq.redisserver.RedisBinary;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnector;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/** {@link Finisher} on a real Redis, and on one that is not there. */
class FinisherTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final Finisher finisher = new Finisher(broker, new RedisOutage("test/finisher"), () -> false);

  @TempDir
  Path tmp;

  @Test
  void outcomeAfterATakeBackIsFencedAndChangesNothing() throws InterruptedException {
    Delivery d = probe.seedInFlight("c1", "j1");
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "worker presumed dead", 3);
    String record = probe.rawRecord("j1");

    assertFalse(finisher.finish("c1", d, new Outcome.Retry(1_000, "attempt 1/5: late")));

    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(record, probe.rawRecord("j1"));
  }

  @Test
  void retryMovesTheJobToDelayedWithItsError() throws InterruptedException {
    Delivery d = probe.seedInFlight("c1", "j1");
    long before = probe.redisNowMs();

    assertTrue(finisher.finish("c1", d, new Outcome.Retry(10_000, "attempt 1/5: boom")));

    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertTrue(probe.dueAt("j1") >= before + 10_000 && probe.dueAt("j1") <= probe.redisNowMs() + 10_000);
    assertEquals(2, probe.record("j1").get("attempt").asInt());
    assertEquals("attempt 1/5: boom", probe.record("j1").get("lastError").asText());
  }

  @Test
  void rescheduleMovesTheJobToDelayedWithItsAttemptsAfresh() throws InterruptedException {
    Delivery d = probe.seedInFlight("c1", "j1");

    assertTrue(finisher.finish("c1", d, new Outcome.Reschedule(30_000)));

    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertEquals(1, probe.record("j1").get("attempt").asInt());
  }

  @Test
  void deadLetterMovesTheJobToDeadWithItsError() throws InterruptedException {
    Delivery d = probe.seedInFlight("c1", "j1");

    assertTrue(finisher.finish("c1", d, new Outcome.DeadLetter("attempt 5/5: boom")));

    assertEquals(List.of("dead"), probe.placesOf("j1"));
    assertEquals("attempt 5/5: boom", probe.record("j1").get("lastError").asText());
  }

  @Test
  void retryOfAMalformedRecordDeadLettersIt() throws InterruptedException {
    RedisFixture.get().redis().hset(broker.keys().jobs(), "bad", "not json");
    RedisFixture.get().redis().lpush(broker.keys().inFlight("c1"), "7|bad");

    assertTrue(finisher.finish("c1", new Delivery(7, "bad"), new Outcome.Retry(1_000, "attempt 1/5: x")));

    assertEquals(List.of("dead"), probe.placesOf("bad"));
    assertEquals("not json", probe.record("bad").get("malformed").asText());
    assertTrue(probe.record("bad").get("lastError").asText().contains("malformed"));
  }

  /** A broker whose Redis is a closed port: every call fails at once. */
  private static UnifiedJedis unreachable(int port) {
    return RedisConnector.open("redis://127.0.0.1:" + port, "finisher-test", 2,
        Duration.ofMillis(200), Duration.ofMillis(200));
  }

  @Test
  void finishKeepsRetryingThroughAnOutageUntilAbandoned() throws Exception {
    AtomicInteger failures = new AtomicInteger();
    try (UnifiedJedis redis = unreachable(RedisFixture.freePort())) {
      Finisher f = new Finisher(new RedisBroker(redis, RedisFixture.freshKeys()),
          new RedisOutage("test/finisher"), () -> failures.incrementAndGet() >= 3);

      assertFalse(f.finish("c1", new Delivery(1, "j1"), new Outcome.DeadLetter("boom")));
    }
    assertEquals(3, failures.get(), "tried again after each failure until told to abandon");
  }

  @Test
  void finishLandsOnceRedisComesBack() throws Exception {
    int port = RedisFixture.freePort();
    Keys keys = RedisFixture.freshKeys();
    Process[] server = new Process[1];
    AtomicInteger failures = new AtomicInteger();
    try (UnifiedJedis redis = unreachable(port)) {
      RedisBroker broker = new RedisBroker(redis, keys);
      // the second failed try brings Redis up, holding the job in c1's list (scripts not loaded)
      Delivery[] held = new Delivery[1];
      Finisher f = new Finisher(broker, new RedisOutage("test/finisher"), () -> {
        if (failures.incrementAndGet() == 2) {
          server[0] = startRedis(port);
          held[0] = new QueueProbe(broker, redis).seedInFlight("c1", "j1");
        }
        return false;
      });

      assertTrue(f.finish("c1", new Delivery(1, "j1"), new Outcome.DeadLetter("attempt 5/5: boom")));

      assertEquals(2, failures.get());
      assertEquals(1, held[0].token(), "the delivery the finisher was given");
      assertEquals(List.of("dead"), new QueueProbe(broker, redis).placesOf("j1"));
    } finally {
      if (server[0] != null) {
        server[0].destroyForcibly().waitFor();
      }
    }
  }

  private Process startRedis(int port) {
    try {
      Path dir = Files.createTempDirectory(tmp, "redis");
      Process p = new ProcessBuilder(RedisBinary.locate().toString(), "--port", Integer.toString(port),
          "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString())
          .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
      try (UnifiedJedis probe = RedisClient.create("127.0.0.1", port)) {
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).ignoreExceptions()
            .until(() -> "PONG".equals(probe.ping()));
      }
      return p;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
