package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.OutOfRangeRecords;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * The wheel never stalls on a job whose due time is out of range (include/wheel.lua): such a job,
 * left in Redis by a version without the range, is dead-lettered with a reason by the forward
 * step, every job beside it is forwarded, and check names it until then.
 */
class OutOfRangeWheelTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final Inspector inspector = new Inspector(RedisFixture.get().redis(), broker.keys());
  private final InvariantCheck invariant = new InvariantCheck(RedisFixture.get().redis(), broker.keys());
  private final Keys keys = broker.keys();
  private final UnifiedJedis redis = RedisFixture.get().redis();

  private List<String> enqueueDueSoon(int n) {
    long due = probe.redisNowMs() + 300;
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      jobs.add(at(String.format("soon%03d", i), "{}", due + i % 7));
    }
    broker.enqueueAll(jobs);
    probe.awaitRedisTimePast(due + 7);
    return jobs.stream().map(NewJob::id).toList();
  }

  /** Forwards until a pass moves nothing; every id moved, in order. */
  private List<String> forwardAll() {
    List<String> before = new ArrayList<>(probe.readyIds());
    for (int i = 0; i < 50 && broker.scheduling().moveDueToReady(1000).moved() > 0; i++) {
      // again while it moves
    }
    List<String> after = new ArrayList<>(probe.readyIds());
    after.removeAll(before);
    return after;
  }

  @Test
  void farFutureAndOverflowedJobsGoToDeadWithAReasonAndTheJobsBehindThemAreForwarded() {
    OutOfRangeRecords.plantOverflowed(redis, keys, "overflowed", "t", "{}");
    OutOfRangeRecords.plantFarFuture(redis, keys, "far", "t", "{}");
    List<String> soon = enqueueDueSoon(100);

    List<InvariantCheck.Breach> breaches = invariant.breaches();
    assertEquals(Set.of("overflowed", "far"), ids(breaches), breaches.toString());
    assertTrue(breaches.stream().allMatch(b -> b.kind() == InvariantCheck.Breach.Kind.OUT_OF_RANGE), breaches.toString());
    assertTrue(breaches.toString().contains("(9.2233720368548"), breaches.toString());

    List<String> forwarded = forwardAll();

    assertEquals(new HashSet<>(soon), new HashSet<>(forwarded), "every due job forwarded, none twice");
    assertEquals(100, forwarded.size());
    assertEquals(List.of("far", "overflowed"), probe.deadIds().stream().sorted().toList());
    for (String id : List.of("far", "overflowed")) {
      String error = probe.record(id).get("lastError").asText();
      assertTrue(error.contains("is out of range: due times run from the epoch to 9999-12-31T23:59:59.999Z"), error);
    }
    assertEquals(0, inspector.depths().delayed());
    assertEquals(List.of(), redis.zrange(keys.delayedIndex(), 0, -1));
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void jobsSharingAnUnorderableBucketWithAFarOneKeepTheirDueTimes() {
    OutOfRangeRecords.plantOverflowed(redis, keys, "overflowed", "t", "{}");
    long later = probe.redisNowMs() + 3_600_000;
    // these land in the overflowed job's bucket (the last one before their place), as they did
    broker.enqueueAll(List.of(at("later1", "{}", later), at("later2", "{}", later + 1)));

    Forwarded pass = broker.scheduling().moveDueToReady(1000);

    assertEquals(0, pass.moved());
    assertEquals(later, pass.nextDueAt().getAsLong(), "the next due time is the later jobs'");
    assertEquals(List.of("overflowed"), probe.deadIds());
    assertEquals(List.of("later1", "later2"), probe.delayedIds());
    assertEquals(2, inspector.depths().delayed());
    assertEquals(List.of(), invariant.breaches(), "the later jobs are filed by their due times again");
    assertTrue(broker.cancel("later2"), "found by id");
  }

  @Test
  void aFarJobWithAWellFormedPositionIsDeadLetteredWhenItIsTheHead() {
    long now = probe.redisNowMs();
    // past the range but under 5e15: a 16-digit position, ordered after every job in range
    String position = String.format("%016d", 5_000_000_000_000_000L + 300_000_000_000_000L) + "|far";
    redis.hset(keys.jobs(), "far", "{\"t\":\"t\",\"m\":5,\"c\":" + now + ",\"d\":" + (300_000_000_000_000L - now) + ",\"p\":{}}");
    redis.zadd(keys.delayedIndex(), 0, position);
    redis.zadd(keys.delayedBucket(position), 300_000_000_000_000L, "far");
    redis.incr(keys.delayedCount());
    List<String> soon = enqueueDueSoon(3);

    assertEquals(soon, reversed(forwardAll()));
    assertEquals(List.of("far"), probe.deadIds());
    assertEquals(0, inspector.depths().delayed());
  }

  private static List<String> reversed(List<String> ids) {
    List<String> out = new ArrayList<>(ids);
    java.util.Collections.reverse(out);
    return out;
  }

  private static Set<String> ids(List<InvariantCheck.Breach> breaches) {
    Set<String> out = new HashSet<>();
    breaches.forEach(b -> out.add(b.id()));
    return out;
  }
}
