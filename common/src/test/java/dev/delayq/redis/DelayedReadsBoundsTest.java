package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * The time wheel's reads for the read side (readDelayed.lua) stop after a fixed amount of work and
 * say where to go on, so a deep page of the job browser, the due count of stats and the check's
 * walk cost bounded calls however many jobs wait; what they answer is what one whole read of the
 * buckets answers.
 */
class DelayedReadsBoundsTest {
  private static final int JOBS = 40_000;

  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final Keys keys = broker.keys();
  private final UnifiedJedis redis = RedisFixture.get().redis();
  private final Scripts scripts = new Scripts(redis);
  private final DelayedReads reads = new DelayedReads(redis);

  /** JOBS jobs, enqueued in a shuffled order (so buckets split as in use), due base + i ms. */
  private long fill() {
    long base = broker.redisNowMs() + 3_600_000;
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < JOBS; i++) {
      order.add(i);
    }
    Collections.shuffle(order, new Random(37));
    List<NewJob> jobs = new ArrayList<>();
    for (int i : order) {
      jobs.add(at(String.format("j%05d", i), "{}", base + i));
      if (jobs.size() == 5_000) {
        broker.enqueueAll(jobs);
        jobs.clear();
      }
    }
    broker.enqueueAll(jobs);
    return base;
  }

  /** Every delayed job, earliest first, from one read of every bucket. */
  private List<Tuple> whole() {
    List<Tuple> all = new ArrayList<>();
    for (String position : redis.zrange(keys.delayedIndex(), 0, -1)) {
      all.addAll(redis.zrangeWithScores(keys.delayedBucket(position), 0, -1));
    }
    all.sort(Comparator.comparingDouble(Tuple::getScore).thenComparing(Tuple::getElement));
    return all;
  }

  @Test
  void aSkipStepWalksAtMostItsBucketsAndSaysWhereTheOffsetGoesOn() {
    fill();
    List<String> buckets = redis.zrange(keys.delayedIndex(), 0, -1);
    assertTrue(buckets.size() > DelayedReads.BUCKETS_A_CALL, "more buckets than one call walks: " + buckets.size());
    long inFirstTen = 0;
    for (int i = 0; i < 10; i++) {
      inFirstTen += redis.zcard(keys.delayedBucket(buckets.get(i)));
    }

    List<?> r = (List<?>) scripts.eval(Script.READ_DELAYED, List.of(keys.delayed()),
        List.of("skip", "-inf", "+inf", Long.toString(JOBS / 2), "", "10"));

    assertEquals(List.of(buckets.get(10), JOBS / 2 - inFirstTen, 0L, 0L), r,
        "ten buckets walked, the eleventh named with the offset left, not landed");
  }

  @Test
  void aPageDeepDownTheQueueIsTheSameAsOneWholeReadCutThere() {
    long base = fill();
    List<Tuple> all = whole();

    for (long offset : new long[] {0, 1, 127, JOBS / 2, JOBS - 10, JOBS - 1}) {
      List<Tuple> page = reads.range(keys, "-inf", "+inf", offset, 50);
      assertEquals(all.subList((int) offset, (int) Math.min(JOBS, offset + 50)), page, "page at " + offset);
    }
    assertEquals(List.of(), reads.range(keys, "-inf", "+inf", JOBS, 50), "past the last job");
    // a window: from its first due time on, the offset counted within it
    List<Tuple> inWindow = reads.range(keys, Long.toString(base + 10_000), Long.toString(base + 29_999), 15_000, 50);
    assertEquals(all.subList(25_000, 25_050), inWindow);
  }

  @Test
  void aCountOverMoreBucketsThanOneCallWalksCountsEveryJob() {
    long base = fill();

    assertEquals(JOBS, reads.count(keys, "-inf", "+inf"));
    assertEquals(30_000, reads.count(keys, "-inf", Long.toString(base + 29_999)));
    assertEquals(JOBS, new Inspector(redis, keys).backlog(base + JOBS).jobs(), "every job due by then is in the backlog");
  }

  @Test
  void aForecastStepWalksAtMostItsBucketsAndTheForecastCountsEveryJobInItsStep() {
    long base = fill();
    List<String> buckets = redis.zrange(keys.delayedIndex(), 0, -1);
    long from = base - 1;
    long inFirstTen = 0;
    for (int b = 0; b < 10; b++) {
      inFirstTen += redis.zcard(keys.delayedBucket(buckets.get(b)));
    }

    // one step of a day: its first ten looks are the old ZSET's (empty) and nine buckets
    List<?> r = (List<?>) scripts.eval(Script.READ_DELAYED, List.of(keys.delayed()),
        List.of("countsSome", Long.toString(from), "86400000", "1", "0", "", "10"));
    assertEquals(List.of(0L, buckets.get(9), 0L), r.subList(0, 3), "stopped in step 0 at the tenth bucket");
    long inFirstNine = inFirstTen - redis.zcard(keys.delayedBucket(buckets.get(9)));
    assertEquals(inFirstNine, r.get(3), "the ids of the nine buckets looked at");
    // going on from there: the rest of the step, ten looks at a time
    long n = (Long) r.get(3);
    String at = buckets.get(9);
    int calls = 1;
    while (!at.isEmpty()) {
      List<?> more = (List<?>) scripts.eval(Script.READ_DELAYED, List.of(keys.delayed()),
          List.of("countsSome", Long.toString(from), "86400000", "1", "0", at, "10"));
      n += (Long) more.get(3);
      at = (Long) more.get(0) < 0 ? "" : (String) more.get(1);
      calls++;
    }
    assertEquals(JOBS, n, "the step's jobs, counted over " + calls + " calls");
    assertEquals((buckets.size() + 1 + 9) / 10, calls, "ten looks a call");

    // the whole forecast, over many calls: a thousand jobs fall due in each second
    assertEquals(Collections.nCopies(40, 1_000L), reads.countsPerStep(keys, from, 1_000, 40));
    // steps that cut buckets, and a window that ends before the last job: as one whole read says
    long[] want = new long[300];
    for (Tuple t : whole()) {
      long i = (long) Math.ceil((t.getScore() - (base + 5)) / 7);
      if (i >= 1 && i <= 300) {
        want[(int) i - 1]++;
      }
    }
    List<Long> got = reads.countsPerStep(keys, base + 5, 7, 300);
    for (int i = 0; i < 300; i++) {
      assertEquals(want[i], got.get(i), "step " + i + " of 7 ms");
    }
    assertEquals(List.of(0L, 0L), reads.countsPerStep(keys, base + JOBS + 10, 1_000, 2), "after the last job");
  }

  @Test
  void theCheckFindsAMisfiledIdAmongManyBucketsWhicheverSideItsDueTimeNames() {
    long base = fill();
    // their records say one is due before the first job, the other after the last: a change by id
    // would look in another bucket than theirs
    misdate("j20000", base - 1);
    misdate("j00100", base + JOBS + 1);

    List<InvariantCheck.Breach> breaches = new ArrayList<>(new InvariantCheck(redis, keys).breaches());
    breaches.sort(Comparator.comparing(InvariantCheck.Breach::id));
    assertEquals(List.of(new InvariantCheck.Breach("j00100", InvariantCheck.Breach.Kind.MISFILED, List.of("delayed")),
        new InvariantCheck.Breach("j20000", InvariantCheck.Breach.Kind.MISFILED, List.of("delayed"))), breaches);
  }

  private void misdate(String id, long dueAt) {
    String raw = redis.hget(keys.jobs(), id);
    redis.hset(keys.jobs(), id, raw.replaceFirst(",\"d\":(\\d+)", ",\"d\":" + (dueAt - createdAt(raw))));
  }

  private static long createdAt(String raw) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(",\"c\":(\\d+)").matcher(raw);
    assertTrue(m.find(), raw);
    return Long.parseLong(m.group(1));
  }
}
