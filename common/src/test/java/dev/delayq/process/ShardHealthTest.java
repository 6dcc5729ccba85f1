package dev.delayq.process;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** Which shards a worker holds back: one failing shard alone, retried by one caller at a time. */
class ShardHealthTest {
  private final AtomicLong masterEpoch = new AtomicLong();
  private final ShardHealth health = new ShardHealth("test", 3, masterEpoch::get);

  /** Fails {@code shard} until its backoff is the longest (1 s), so that no retry falls due between two lines. */
  private void failOften(int shard) {
    for (int i = 0; i < 6; i++) {
      health.failed(shard, new JedisConnectionException("node lost"));
    }
  }

  @Test
  void aFailingShardIsHeldBackAloneAndTriedAgainByOneCallerOnceItsRetryIsDue() {
    failOften(0);
    assertTrue(health.failing(0));
    assertFalse(health.failing(1), "the other shards go on");
    assertTrue(health.mayCall(1));
    assertFalse(health.mayCall(0), "not before its retry is due");
    await().atMost(Duration.ofSeconds(5)).until(() -> health.mayCall(0));
    assertFalse(health.mayCall(0), "the retry went to one caller; the next waits for the backoff again");
    health.worked(0);
    assertFalse(health.failing(0));
    assertTrue(health.mayCall(0));
  }

  @Test
  void aChangeOfMasterMakesTheRetryDueAtOnce() {
    failOften(2);
    assertFalse(health.mayCall(2));
    masterEpoch.incrementAndGet(); // the failed node's replica took over
    assertTrue(health.masterChangedSinceFailure(2));
    assertTrue(health.mayCall(2));
  }
}
