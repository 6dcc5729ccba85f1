package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.metrics.StatsRecorder;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A counter of the stats hash (or the delayed depth) that holds no integer (planted by another client) never turns a
 * job's written transition into a failure: the job is in its one place, the caller is told it
 * succeeded, and the counter counts again from there.
 */
class BadStatsFieldsTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final DelayQueue queue = new DelayQueue(broker, 1_048_576, 5);

  private String counter(String field) {
    return RedisFixture.get().redis().hget(keys.stats(), field);
  }

  @Test
  void anEnqueueBesideANonIntegerCounterSucceedsOnceAndTheCounterIsReset() {
    RedisFixture.get().redis().hset(keys.stats(), "count:enqueued:mail", "abc");

    EnqueueResult now = queue.delay("mail", "{}", Duration.ZERO, JobOptions.withId("j1"));
    EnqueueResult later = queue.delay("mail", "{}", Duration.ofMinutes(5), JobOptions.withId("j2"));

    assertTrue(now.accepted() && later.accepted(), now + " " + later);
    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(List.of("delayed"), probe.placesOf("j2"));
    assertEquals(2, probe.recordCount(), "each job once");
    assertEquals("2", counter("count:enqueued:mail"), "reset to the first call's count, then counted on");
  }

  @Test
  void aBatchBesideANonIntegerCounterIsAcceptedWhole() {
    RedisFixture.get().redis().hset(keys.stats(), "count:enqueued:mail", "9223372036854775807");

    List<EnqueueResult> all = queue.enqueueAll(List.of(JobRequest.delay("mail", "{}", Duration.ZERO),
        JobRequest.delay("mail", "{}", Duration.ofMinutes(1))));

    assertTrue(all.stream().allMatch(EnqueueResult::accepted), all.toString());
    assertEquals(2, probe.recordCount());
    assertEquals("2", counter("count:enqueued:mail"), "an add that would overflow resets it too");
  }

  @Test
  void theWorkersOutcomeCountersThatHoldNoIntegerCountAgainFromTheNextFlush() {
    RedisFixture.get().redis().hset(keys.stats(), "count:succeeded:mail", "abc");
    RedisFixture.get().redis().hset(keys.stats(), "count:dead:mail", "-x");
    StatsRecorder recorder = new StatsRecorder(keys);
    recorder.finished("mail", StatsRecorder.Event.SUCCEEDED, 5);
    recorder.also("mail", StatsRecorder.Event.DEAD);

    recorder.flush(RedisFixture.get().redis(), System.currentTimeMillis() / 1000);
    recorder.finished("mail", StatsRecorder.Event.SUCCEEDED, 5);
    recorder.flush(RedisFixture.get().redis(), System.currentTimeMillis() / 1000);

    assertEquals("2", counter("count:succeeded:mail"));
    assertEquals("1", counter("count:dead:mail"));
  }

  @Test
  void aDelayedDepthThatHoldsNoIntegerFailsNoEnqueueAndStrandsNoForwardedJob() {
    RedisFixture.get().redis().set(keys.delayedCount(), "abc");

    EnqueueResult r = queue.delay("mail", "{}", Duration.ofMillis(50), JobOptions.withId("d1"));

    assertTrue(r.accepted(), r.toString());
    assertEquals(List.of("delayed"), probe.placesOf("d1"));
    assertEquals("1", RedisFixture.get().redis().get(keys.delayedCount()), "reset to what the call counted");
    RedisFixture.get().redis().set(keys.delayedCount(), "abc");
    probe.awaitRedisTimePast(r.dueAt().toEpochMilli());
    assertEquals(1, broker.scheduling().moveDueToReady(1000).moved());
    assertEquals(List.of("ready"), probe.placesOf("d1"), "forwarded, not left in no place");
    assertEquals("0", RedisFixture.get().redis().get(keys.delayedCount()));
  }
}
