package dev.delayq.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisMonitor;
import redis.clients.jedis.UnifiedJedis;

/**
 * enqueue.lua's batch in the time wheel (include/wheel's wheelGather and wheelFlush): the adds
 * of one call go in bucket by bucket, found from one read of the index range or a lookup each,
 * with one count for the call. Each case makes one script call with all its jobs (the client
 * sends at most 100 a call; another client may send more) and then reads the wheel: the count
 * equals the ids in the buckets, every bucket is a listpack of at most 128, each id is found by
 * its record's due time (check: no MISFILED) and the ids come out in due order.
 */
class EnqueueBatchWheelTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final Inspector inspector = new Inspector(RedisFixture.get().redis(), broker.keys());
  private final InvariantCheck invariant = new InvariantCheck(RedisFixture.get().redis(), broker.keys());
  private final Keys keys = broker.keys();
  private final UnifiedJedis redis = RedisFixture.get().redis();
  private final String head = QueueProbe.head(QueueProbe.TYPE, QueueProbe.MAX_ATTEMPTS);

  /** A job: its id and due time (epoch ms); mode "at" unless given. */
  private record Job(String id, long due, String mode) {
    Job(String id, long due) {
      this(id, due, "at");
    }
  }

  /** One enqueue.lua call with all the jobs; returns its reply (two values a job). */
  private List<Long> enqueueInOneCall(List<Job> jobs) {
    List<String> args = new ArrayList<>();
    args.add("1048576");
    for (Job j : jobs) {
      args.addAll(List.of(j.id(), head, "{\"n\":1}", Long.toString(j.due()), j.mode()));
    }
    @SuppressWarnings("unchecked")
    List<Long> reply = (List<Long>) redis.eval(Script.ENQUEUE.source(), List.of(keys.jobs(),
        keys.delayed(), keys.ready(), keys.wake(), keys.stats(), keys.ended(), keys.endedExpiry(),
        keys.dead()), args);
    return reply;
  }

  /** The wheel's own reading of itself agrees with what is in it, and with due. */
  private void assertWheelHolds(java.util.Map<String, Long> due) {
    List<String> buckets = redis.zrange(keys.delayedIndex(), 0, -1);
    long inBuckets = 0;
    for (String position : buckets) {
      long n = redis.zcard(keys.delayedBucket(position));
      assertTrue(n >= 1 && n <= 128, position + " holds " + n);
      assertEquals("listpack", redis.objectEncoding(keys.delayedBucket(position)), position);
      inBuckets += n;
    }
    assertEquals(due.size(), inBuckets, "ids in the buckets");
    assertEquals(due.size(), inspector.depths().delayed(), "the count");
    assertEquals(List.of(), invariant.breaches());
    List<String> ids = probe.delayedIds();
    List<String> expected = new ArrayList<>(due.keySet());
    expected.sort((a, b) -> due.get(a).equals(due.get(b)) ? a.compareTo(b) : Long.compare(due.get(a), due.get(b)));
    assertEquals(expected, ids, "due order, ties by id");
    for (var e : due.entrySet()) {
      assertEquals(e.getValue(), probe.dueAt(e.getKey()), e.getKey());
    }
  }

  /**
   * The commands the scripts sent to this queue's wheel index while {@code call} ran, as MONITOR
   * shows them: a marker ECHO before and after brackets the call.
   */
  private List<String> indexCommandsDuring(Runnable call) throws Exception {
    return wheelCommandsDuring(call, "\"" + keys.delayedIndex() + "\"");
  }

  /** The same for the commands the scripts sent whose text holds {@code key}. */
  private List<String> wheelCommandsDuring(Runnable call, String key) throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    String marker = "index-commands-" + keys.queue();
    Jedis monitor = new Jedis(URI.create(RedisFixture.get().url()));
    Thread watching = new Thread(() -> {
      try {
        monitor.monitor(new JedisMonitor() {
          @Override
          public void onCommand(String command) {
            if (command.contains(marker) || command.contains("lua]") && command.contains(key)) {
              seen.add(command);
            }
          }
        });
      } catch (RuntimeException closed) {
        // the monitor's connection closed below
      }
    }, "monitor");
    watching.start();
    try {
      // MONITOR shows what runs after it answered: echo until it shows the start marker
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
        redis.echo(marker + "-start");
        return seen.stream().anyMatch(c -> c.contains(marker + "-start"));
      });
      seen.clear();
      call.run();
      redis.echo(marker + "-end");
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.stream().anyMatch(c -> c.contains(marker + "-end")));
    } finally {
      monitor.close();
      watching.join(10_000);
    }
    return seen.stream().filter(c -> !c.contains(marker)).toList();
  }

  /**
   * Reads of a range of the index by position (wheelRange's ZRANGE BYLEX, whole), not a lookup of
   * one add's bucket (wheelBucket's BYLEX REV LIMIT 0 1) nor a read of the head (by rank).
   */
  private static long rangeReads(List<String> indexCommands) {
    return indexCommands.stream().filter(c -> c.contains("\"ZRANGE\"") && c.contains("\"BYLEX\"")
        && !c.contains("\"REV\"") && !c.contains("\"LIMIT\"")).count();
  }

  private static long lookups(List<String> indexCommands) {
    return indexCommands.stream().filter(c -> c.contains("\"ZRANGE\"") && c.contains("\"BYLEX\"")
        && c.contains("\"REV\"")).count();
  }

  private static List<Job> shuffled(List<Job> jobs, long seed) {
    List<Job> out = new ArrayList<>(jobs);
    Collections.shuffle(out, new Random(seed));
    return out;
  }

  private static java.util.Map<String, Long> dues(List<Job> jobs) {
    java.util.Map<String, Long> m = new java.util.HashMap<>();
    for (Job j : jobs) {
      m.put(j.id(), j.due());
    }
    return m;
  }

  @Test
  void aCallOfMoreIdsThanBucketsHoldAtOneMillisecondSplitsAndCountsEachOnce() {
    long base = probe.redisNowMs() + 3_600_000;
    List<Job> jobs = new ArrayList<>();
    for (int i = 0; i < 700; i++) {
      jobs.add(new Job(String.format("t%04d", i), base));
    }
    // the first call meets an empty wheel; the second fills the buckets the first left, past
    // their room, so that its adds split them in the same call
    enqueueInOneCall(shuffled(jobs.subList(0, 300), 1));
    enqueueInOneCall(shuffled(jobs.subList(300, 700), 2));

    assertTrue(redis.zcard(keys.delayedIndex()) >= 6, "split by id");
    assertWheelHolds(dues(jobs));
  }

  @Test
  void addsThatFallInTheSameBucketsAndBeforeEveryBucketInOneCallLandWhereTheirDueTimeSays() throws Exception {
    long base = probe.redisNowMs() + 3_600_000;
    List<Job> first = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      first.add(new Job("a" + i, base + i * 100L));
    }
    enqueueInOneCall(shuffled(first, 3));
    // one call: a few before every bucket, many inside the first buckets' ranges (dense: the
    // index range is read once), some at a bucket's own position's due time, some past the last
    List<Job> second = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      second.add(new Job("early" + i, base - 1_000 - i));
    }
    for (int i = 0; i < 150; i++) {
      second.add(new Job("mid" + i, base + (i % 50) * 100L + (i % 3)));
    }
    for (String position : redis.zrange(keys.delayedIndex(), 0, -1)) {
      long due = Long.parseLong(position.substring(0, position.indexOf('|'))) - 5_000_000_000_000_000L;
      second.add(new Job("b" + position.substring(position.indexOf('|') + 1), due));
      second.add(new Job("0" + position.substring(position.indexOf('|') + 1), due));
    }
    for (int i = 0; i < 20; i++) {
      second.add(new Job("late" + i, base + 100_000 + i));
    }
    List<Long> reply = new ArrayList<>();
    List<String> indexCommands = indexCommandsDuring(() -> reply.addAll(enqueueInOneCall(shuffled(second, 4))));

    assertEquals(1, rangeReads(indexCommands), "the index range read once: " + indexCommands);

    for (int i = 0; i < reply.size(); i += 2) {
      assertEquals(1L, reply.get(i), "accepted");
    }
    List<Job> all = new ArrayList<>(first);
    all.addAll(second);
    assertWheelHolds(dues(all));
    assertEquals("early29", probe.delayedIds().get(0), "the earliest is the head");
  }

  @Test
  void aFewAddsIntoAWideWheelAreLookedUpOneByOne() throws Exception {
    long base = probe.redisNowMs() + 3_600_000;
    List<Job> wide = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      wide.add(new Job(String.format("w%05d", i), base + (i * 7919L) % 600_000));
    }
    for (int from = 0; from < wide.size(); from += 500) {
      enqueueInOneCall(wide.subList(from, from + 500));
    }
    // far more buckets than adds: the call looks each add up instead of reading the index
    List<Job> few = List.of(new Job("f1", base + 1), new Job("f2", base + 300_000),
        new Job("f3", base + 599_999), new Job("f4", base - 1), new Job("f5", base + 300_000));
    List<String> indexCommands = indexCommandsDuring(() -> enqueueInOneCall(few));

    assertEquals(0, rangeReads(indexCommands), "no read of the index range: " + indexCommands);
    assertTrue(lookups(indexCommands) >= few.size(), "a lookup for each add: " + indexCommands);
    List<Job> all = new ArrayList<>(wide);
    all.addAll(few);
    assertWheelHolds(dues(all));
  }

  @Test
  void addsPastTheirBucketsRoomSplitItAndGoInPerHalfNotOneByOne() throws Exception {
    long base = probe.redisNowMs() + 3_600_000;
    List<Job> first = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      first.add(new Job(String.format("a%03d", i), base + i * 1_000L));
    }
    enqueueInOneCall(first);
    // 900 adds inside the one bucket's range and 100 before it: the bucket is counted once and
    // its adds go in by a few multi-id ZADDs as it splits, not a ZADD (and a ZCARD) per add
    List<Job> second = new ArrayList<>();
    for (int i = 0; i < 900; i++) {
      second.add(new Job(String.format("b%03d", i), base + (i * 7919L) % 100_000));
    }
    for (int i = 0; i < 100; i++) {
      second.add(new Job(String.format("c%03d", i), base - 1 - i));
    }
    List<String> commands = wheelCommandsDuring(() -> enqueueInOneCall(shuffled(second, 5)),
        "\"" + keys.delayed() + ":");
    long zadds = commands.stream().filter(c -> c.contains("\"ZADD\"") && !c.contains(keys.delayedIndex())).count();

    assertTrue(zadds < 60, zadds + " ZADDs to buckets for 1,000 adds");
    long zcards = commands.stream().filter(c -> c.contains("\"ZCARD\"")).count();
    assertTrue(zcards < 10, zcards + " ZCARDs: a bucket is counted once, its halves not again");
    List<Job> all = new ArrayList<>(first);
    all.addAll(second);
    assertWheelHolds(dues(all));
  }

  @Test
  void anIdTwiceInOneCallIsAcceptedOnceAndCountedOnce() {
    long base = probe.redisNowMs() + 3_600_000;
    List<Job> jobs = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      jobs.add(new Job("d" + i, base + i));
    }
    jobs.add(new Job("d7", base + 10_000));
    jobs.add(new Job("d8", base + 20_000, "at+due"));
    List<Long> reply = enqueueInOneCall(jobs);

    assertEquals(List.of(0L, -1L), reply.subList(100, 102), "d7's second job: pending, kept");
    assertEquals(List.of(4L, base + 20_000), reply.subList(102, 104), "d8's second job moves it");
    java.util.Map<String, Long> due = dues(jobs.subList(0, 50));
    due.put("d8", base + 20_000);
    assertWheelHolds(due);
  }
}
