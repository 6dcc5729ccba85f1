package dev.delayq.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.job.RetryPolicy;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * {@link WarmUp}: a worker's start-up run of its claim-to-handler path, on a real Redis. It holds
 * no connection (its stats recorder is never flushed), so what it could change is the queue's
 * keys, which must stay as they were.
 */
class WarmUpTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final UnifiedJedis redis = RedisFixture.get().redis();

  /** Every key of the queue with its serialized value. */
  private Map<String, String> queueKeys() {
    Map<String, String> out = new TreeMap<>();
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = redis.scan(cursor, new ScanParams().match("*" + keys.queue() + "*").count(1000));
      for (String key : page.getResult()) {
        out.put(key, java.util.HexFormat.of().formatHex(redis.dump(key)));
      }
      cursor = page.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    return out;
  }

  @Test
  void runsThePathToItsOutcomeWithoutAJobAndWithoutTouchingTheQueue() {
    probe.seedReady("waiting");
    probe.seedDelayed("later", 60_000);
    Map<String, String> before = queueKeys();
    assertTrue(before.size() >= 3, "the queue has keys to compare: " + before.keySet());

    int acked = WarmUp.run(keys, Duration.ofSeconds(60), new RetryPolicy(Duration.ofSeconds(2), Duration.ofHours(1), 0.2),
        WarmUp.ROUNDS);

    assertEquals(WarmUp.ROUNDS, acked, "each round ran to a done outcome");
    assertEquals(before, queueKeys(), "no key of the queue changed (stats included)");
    assertEquals(List.of("waiting"), probe.readyIds());
    assertEquals(List.of("delayed"), probe.placesOf("later"));
  }

  @Test
  void keepsTheCallersInterrupt() {
    Thread.currentThread().interrupt();
    try {
      WarmUp.run(keys, Duration.ofSeconds(60), new RetryPolicy(Duration.ofSeconds(2), Duration.ofHours(1), 0.2), 3);
      assertTrue(Thread.currentThread().isInterrupted(), "a slot clears it at each run; the warm-up sets it back");
    } finally {
      Thread.interrupted();
    }
  }
}
