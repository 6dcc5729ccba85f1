package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Single enqueues made at once by many threads share script calls, and a lone one is sent by its
 * caller: either way each caller gets its own job's result, and an error its own call met.
 */
class EnqueueBatcherTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final DelayQueue queue = new DelayQueue(broker, 1_048_576, 5);

  @Test
  void fiftyThreadsEnqueueingAtOnceEachGetTheirOwnJobStoredWithItsPayload() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(50);
    List<Future<List<EnqueueResult>>> futures = new ArrayList<>();
    for (int t = 0; t < 50; t++) {
      int thread = t;
      futures.add(pool.submit(() -> {
        List<EnqueueResult> mine = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
          mine.add(queue.delay("order_close", "{\"t\":" + thread + ",\"i\":" + i + "}", Duration.ofMinutes(1),
              JobOptions.defaults().id("o-" + thread + "-" + i)));
        }
        return mine;
      }));
    }
    for (int t = 0; t < 50; t++) {
      List<EnqueueResult> mine = futures.get(t).get();
      for (int i = 0; i < 40; i++) {
        EnqueueResult r = mine.get(i);
        assertEquals("o-" + t + "-" + i, r.id());
        assertEquals(EnqueueResult.Status.ACCEPTED, r.status(), r.toString());
        assertTrue(probe.rawRecord(r.id()).endsWith(",\"p\":{\"t\":" + t + ",\"i\":" + i + "}}"), probe.rawRecord(r.id()));
      }
    }
    pool.shutdown();
    assertEquals(2000, probe.delayedIds().size());
  }

  @Test
  void aLoneCallIsSentAndAnsweredAsOneAmongManyIs() {
    EnqueueResult first = queue.delay("order_close", "{}", Duration.ofMinutes(1), JobOptions.defaults().id("o-1"));
    EnqueueResult again = queue.delay("order_close", "{}", Duration.ofMinutes(1), JobOptions.defaults().id("o-1"));

    assertEquals(EnqueueResult.Status.ACCEPTED, first.status());
    assertEquals(EnqueueResult.Status.PENDING, again.status(), "the second enqueue of a pending id changes nothing");
    assertEquals(List.of("o-1"), probe.delayedIds());
  }

  @Test
  void aRedisErrorReachesTheCallerWhoseCallMetIt() {
    RedisFixture.get().redis().set(keys.jobs(), "not a hash");

    JedisDataException e = assertThrows(JedisDataException.class,
        () -> queue.delay("order_close", "{}", Duration.ofMinutes(1)));
    assertTrue(e.getMessage().contains("WRONGTYPE"), e.getMessage());
  }

  @Test
  void aClosedQueueRefusesAnEnqueueSayingSo() {
    queue.close();

    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> queue.delay("order_close", "{}", Duration.ofMinutes(1)));
    assertEquals("this DelayQueue is closed", e.getMessage());
  }
}
