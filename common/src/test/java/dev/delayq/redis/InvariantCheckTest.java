package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.delayq.redis.InvariantCheck.Breach;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link InvariantCheck}: a healthy queue checks clean, and each breach is reported. */
class InvariantCheckTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final Inspector inspector = new Inspector(RedisFixture.get().redis(), keys);
  private final InvariantCheck invariant = new InvariantCheck(RedisFixture.get().redis(), keys);

  /** One job in every place: two delayed, one ready, one in flight, one dead. */
  @BeforeEach
  void seedAHealthyQueue() {
    probe.seedDead("c0", "dead-1", "boom");
    probe.seedInFlight("c1", "running-1");
    probe.seedReady("ready-1");
    probe.seedDelayed("delayed-1", 60_000);
    probe.seedDelayed("delayed-2", 120_000);
  }

  @Test
  void emptyQueueChecksClean() {
    assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), RedisFixture.freshKeys()).breaches());
  }

  @Test
  void healthyQueueChecksClean() {
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void recordWithNoPlaceIsAnOrphan() {
    RedisFixture.get().redis().hset(keys.jobs(), "orphan", "{\"type\":\"t\",\"payload\":{}}");

    List<Breach> breaches = invariant.breaches();

    assertEquals(List.of(new Breach("orphan", Breach.Kind.ORPHAN_RECORD, List.of())), breaches);
    assertEquals("orphan: record in jobs but the id is in no structure", breaches.get(0).toString());
  }

  @Test
  void idWithoutARecordIsMissingItsRecord() {
    RedisFixture.get().redis().lpush(keys.ready(), "ghost");

    assertEquals(List.of(new Breach("ghost", Breach.Kind.MISSING_RECORD, List.of("ready"))), invariant.breaches());
  }

  @Test
  void idInDelayedAndReadyIsInSeveralPlaces() {
    RedisFixture.get().redis().lpush(keys.ready(), "delayed-1");

    List<Breach> breaches = invariant.breaches();

    assertEquals(List.of(new Breach("delayed-1", Breach.Kind.SEVERAL_PLACES, List.of("delayed", "ready"))), breaches);
    assertEquals("delayed-1: in several places at once: delayed, ready", breaches.get(0).toString());
  }

  @Test
  void idTwiceInOneListIsInSeveralPlaces() {
    RedisFixture.get().redis().lpush(keys.ready(), "ready-1");

    assertEquals(List.of(new Breach("ready-1", Breach.Kind.SEVERAL_PLACES, List.of("ready", "ready"))),
        invariant.breaches());
  }

  @Test
  void inFlightListOfAnUnregisteredConsumerIsFoundByTheCheck() {
    RedisFixture.get().redis().lpush(keys.inFlight("unregistered"), "ghost");

    assertEquals(List.of(new Breach("ghost", Breach.Kind.MISSING_RECORD, List.of("inflight:unregistered"))),
        invariant.breaches());
    assertEquals(1, inspector.depths().inFlight(), "depths count the registered consumers' lists only");
  }

  @Test
  void breachesOfEveryKindAreAllReported() {
    RedisFixture.get().redis().hset(keys.jobs(), "orphan", "{}");
    RedisFixture.get().redis().zadd(keys.dead(), 1, "ghost");
    RedisFixture.get().redis().lpush(keys.inFlight("c1"), "delayed-2");

    List<Breach> breaches = invariant.breaches();

    assertEquals(3, breaches.size(), breaches.toString());
    assertEquals(List.of("orphan", "ghost", "delayed-2"), breaches.stream()
        .sorted(Comparator.comparing(Breach::kind))
        .map(Breach::id).toList());
  }

  @Test
  void amongFiftyThousandJobsEachBreachIsReportedByItsIdAndNothingElse() {
    List<NewJob> jobs = new ArrayList<>();
    long due = probe.redisNowMs() + 3_600_000;
    for (int i = 0; i < 50_000; i++) {
      jobs.add(QueueProbe.at("many-" + i, "{}", due + i));
    }
    broker.enqueueAll(jobs);
    var redis = RedisFixture.get().redis();
    redis.hset(keys.jobs(), "orphan", "{\"type\":\"t\",\"payload\":{}}");
    redis.lpush(keys.ready(), "ghost");
    redis.zadd(keys.dead(), 1, "many-25000");
    redis.hset(keys.ended(), "gone", "1");

    List<Breach> breaches = new ArrayList<>(invariant.breaches());
    breaches.sort(Comparator.comparing(Breach::kind));

    assertEquals(List.of(new Breach("orphan", Breach.Kind.ORPHAN_RECORD, List.of()),
        new Breach("ghost", Breach.Kind.MISSING_RECORD, List.of("ready")),
        new Breach("many-25000", Breach.Kind.SEVERAL_PLACES, List.of("delayed", "dead")),
        new Breach("gone", Breach.Kind.ENDED_MISMATCH, List.of("not in ended:expiry"))), breaches);
  }
}
