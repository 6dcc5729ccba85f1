package dev.delayq.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.delayq.redisserver.RedisServer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

class ProbeStampsTest {
  @Test
  void everyStampOfManyThreadsReachesItsListWithinAFlushPeriod() throws Exception {
    try (RedisServer server = RedisServer.start(); RedisClient redis = server.client()) {
      ProbeStamps stamps = new ProbeStamps(() -> redis);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int n = t;
        Thread thread = new Thread(() -> {
          for (int i = 0; i < 1001; i++) {
            stamps.add(i % 2 == 0 ? "even" : "odd", n + ":" + i);
          }
        });
        thread.start();
        threads.add(thread);
      }
      for (Thread t : threads) {
        t.join();
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (redis.llen("even") + redis.llen("odd") < 4004 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      Set<String> all = new HashSet<>(redis.lrange("even", 0, -1));
      all.addAll(redis.lrange("odd", 0, -1));
      assertEquals(4004, all.size(), "every stamp once");
      assertEquals(2004, redis.llen("even"));
    }
  }

  /**
   * A handler's full buffer and the flusher's round fail at the same time while Redis is away
   * (one push at a time keeps them in order: two failed pushes once put each other's stamps back
   * out of order).
   */
  @Test
  void stampsWhosePushFailedAreKeptAndPushedOnceRedisAnswersAgain() throws Exception {
    try (RedisServer server = RedisServer.start()) {
      AtomicReference<UnifiedJedis> client = new AtomicReference<>(
          RedisClient.create("127.0.0.1", 1)); // nothing listens there: every push fails
      ProbeStamps stamps = new ProbeStamps(client::get);
      for (int i = 0; i < 250; i++) {
        stamps.add("log", Integer.toString(i));
      }
      Thread.sleep(3 * ProbeStamps.FLUSH_EVERY_MS);
      client.set(server.client());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (client.get().llen("log") < 250 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < 250; i++) {
        expected.add(Integer.toString(i));
      }
      assertEquals(expected, client.get().lrange("log", 0, -1), "all of them, in order");
    }
  }
}
