package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * The time wheel that holds delayed jobs (include/wheel.lua): buckets that split before they pass
 * the listpack limit, ids found by their record's due time, ties at one ms, the depth counter,
 * and the old single delayed ZSET still read and drained.
 */
class TimeWheelTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final Inspector inspector = new Inspector(RedisFixture.get().redis(), broker.keys());
  private final InvariantCheck invariant = new InvariantCheck(RedisFixture.get().redis(), broker.keys());
  private final Keys keys = broker.keys();
  private final UnifiedJedis redis = RedisFixture.get().redis();

  private List<String> buckets() {
    return redis.zrange(keys.delayedIndex(), 0, -1);
  }

  private void enqueueShuffled(int n, long base, int spreadMs) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      order.add(i);
    }
    Collections.shuffle(order, new Random(15));
    List<NewJob> jobs = new ArrayList<>();
    for (int i : order) {
      jobs.add(at(String.format("j%04d", i), "{}", base + (spreadMs == 0 ? 0 : (i * 7919L) % spreadMs)));
    }
    broker.enqueueAll(jobs);
  }

  @Test
  void bucketsSplitBeforeTheyPassTheListpackLimitAndEveryIdIsFoundByItsDueTime() {
    long base = probe.redisNowMs() + 3_600_000;
    enqueueShuffled(1_000, base, 60_000);

    List<String> buckets = buckets();
    assertTrue(buckets.size() >= 1_000 / 128, "split into buckets: " + buckets.size());
    for (String position : buckets) {
      long n = redis.zcard(keys.delayedBucket(position));
      assertTrue(n >= 1 && n <= 128, position + " holds " + n);
      assertEquals("listpack", redis.objectEncoding(keys.delayedBucket(position)));
    }
    assertEquals(1_000, inspector.depths().delayed());
    List<String> ids = probe.delayedIds();
    assertEquals(1_000, ids.size());
    for (int i = 0; i < 1_000; i++) {
      String id = String.format("j%04d", i);
      assertEquals(base + (i * 7919L) % 60_000, probe.dueAt(id), id);
    }
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void moreThanABucketOfIdsAtOneMillisecondSplitByIdAndEachIsCancelledByIt() {
    long base = probe.redisNowMs() + 3_600_000;
    enqueueShuffled(600, base, 0);

    assertTrue(buckets().size() >= 5, "ties split by id: " + buckets());
    for (String position : buckets()) {
      assertTrue(redis.zcard(keys.delayedBucket(position)) <= 128);
    }
    for (int i = 0; i < 600; i += 2) {
      assertTrue(broker.cancel(String.format("j%04d", i)), "cancelled j" + i);
    }
    assertEquals(300, inspector.depths().delayed());
    assertFalse(broker.cancel("j0000"), "once");
    for (int i = 1; i < 600; i += 2) {
      assertEquals(base, probe.dueAt(String.format("j%04d", i)));
    }
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void forwardingTakesTheBucketsInDueOrderAndRemovesEmptiedOnes() {
    // a lead a loaded host's enqueue cannot outrun: a job added already due skips the wheel
    long base = probe.redisNowMs() + 1_500;
    enqueueShuffled(500, base, 200);
    assertEquals(500, inspector.depths().delayed(), "all 500 in the wheel before any is due");
    List<String> before = buckets();
    probe.awaitRedisTimePast(base + 200);

    int moved = 0;
    while (true) {
      int m = broker.scheduling().moveDueToReady(130).moved();
      moved += m;
      if (m < 130) {
        break;
      }
    }

    assertEquals(500, moved);
    assertEquals(List.of(), buckets(), "emptied buckets leave the index");
    for (String position : before) {
      assertFalse(redis.exists(keys.delayedBucket(position)), "bucket " + position + " is gone, whole or emptied");
    }
    assertEquals(0, inspector.depths().delayed(), "the count follows");
    List<String> ready = probe.readyIds();
    // the right end runs next: due order from right to left
    long last = Long.MAX_VALUE;
    for (String id : ready) {
      long due = base + (Integer.parseInt(id.substring(1)) * 7919L) % 200;
      assertTrue(due <= last, id + " after a later one");
      last = due;
    }
  }

  @Test
  void everyForwardCallAnswersTheDueTimeOfTheEarliestIdLeftWhereverItsBatchEnds() {
    // (1.5 s ahead: on a loaded machine an enqueue that outlasts the lead puts due ids straight
    // into ready, and the forward would then move fewer than the test counts)
    long base = probe.redisNowMs() + 1_500;
    // 300 ids due within 150 ms and 100 not due for an hour, over several buckets, in an order
    // that mixes them
    List<Long> dues = new ArrayList<>();
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      long due = i < 300 ? base + i / 2 : base + 3_600_000 + i;
      dues.add(due);
      jobs.add(at(String.format("j%04d", i), "{}", due));
    }
    Collections.shuffle(jobs, new Random(7));
    broker.enqueueAll(jobs);
    assertTrue(buckets().size() > 3, "several buckets: " + buckets().size());
    probe.awaitRedisTimePast(base + 150);

    // batches of these sizes end inside a bucket, at its end and at the due ones' end
    int[] limits = {1, 7, 64, 130, 2, 128};
    int moved = 0;
    for (int call = 0; moved < 300; call++) {
      int limit = limits[call % limits.length];
      Forwarded f = broker.scheduling().moveDueToReady(limit);
      assertEquals(Math.min(limit, 300 - moved), f.moved());
      moved += f.moved();
      assertEquals(dues.get(moved), f.nextDueAt().orElseThrow(), "after " + moved + " moved");
    }
    Forwarded idle = broker.scheduling().moveDueToReady(1000);
    assertEquals(0, idle.moved());
    assertEquals(dues.get(300), idle.nextDueAt().orElseThrow());
    assertEquals(100, inspector.depths().delayed());
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void anEarlierJobThanEveryBucketMovesTheFirstBucketsStartDown() {
    long base = probe.redisNowMs() + 3_600_000;
    for (int i = 0; i < 10; i++) {
      broker.enqueue(at("late" + i, "{}", base - i * 1_000L));
    }
    assertEquals(1, buckets().size(), "one bucket while it has room");
    assertEquals("late9", probe.delayedIds().get(0));
    for (int i = 0; i < 10; i++) {
      assertTrue(broker.cancel("late" + i));
    }
    assertEquals(List.of(), buckets());
  }

  @Test
  void checkReportsAnIdInABucketItsRecordsDueTimeDoesNotName() {
    probe.seedDelayed("j1", 3_600_000);
    String raw = probe.rawRecord("j1");
    // its record now says it is due an hour earlier than its place: changes by id would miss it
    redis.hset(keys.jobs(), "j1", raw.replaceFirst(",\"d\":(\\d+)", ",\"d\":0"));

    assertEquals(List.of(new InvariantCheck.Breach("j1", InvariantCheck.Breach.Kind.MISFILED, List.of("delayed"))),
        invariant.breaches());
  }

  @Test
  void jobsOfTheOldSingleZsetAreStillFoundChangedCountedAndDrained() {
    long now = probe.redisNowMs();
    // the layout before the wheel: a record in jobs and the id in the delayed ZSET itself
    for (String id : List.of("old-due", "old-later", "old-cancel")) {
      redis.hset(keys.jobs(), id, "{\"t\":\"test_job\",\"m\":5,\"c\":" + now + ",\"d\":0,\"p\":{}}");
    }
    redis.zadd(keys.delayed(), now - 5, "old-due");
    redis.zadd(keys.delayed(), now + 3_600_000, "old-later");
    redis.zadd(keys.delayed(), now + 3_600_000, "old-cancel");
    long newDue = probe.seedDelayed("new", 60_000);

    assertEquals(4, inspector.depths().delayed());
    assertEquals(List.of("old-due", "new", "old-cancel", "old-later"), probe.delayedIds());
    assertEquals(List.of(), invariant.breaches());
    assertTrue(broker.cancel("old-cancel"));

    Forwarded f = broker.scheduling().moveDueToReady(1000);
    assertEquals(1, f.moved());
    assertEquals(List.of("old-due"), probe.readyIds());
    assertEquals(newDue, f.nextDueAt().orElseThrow());
    assertEquals(List.of("new", "old-later"), probe.delayedIds());
    assertEquals(List.of(), invariant.breaches());
  }
}
