package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Promote, reschedule and edit racing the scheduler's forward and two claiming consumers over
 * 1,000 jobs due now: every snapshot keeps each id in one place, every job runs exactly once, and
 * an edit that was accepted is the payload its run sees.
 */
class ChangePendingRaceTest {
  private static final int JOBS = 1000;

  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final InvariantCheck invariant = new InvariantCheck(RedisFixture.get().redis(), broker.keys());

  @Test
  void changesRacingTheForwarderAndConsumersLoseAndDoubleNothing() throws Exception {
    long due = probe.redisNowMs() + 300;
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < JOBS; i++) {
      jobs.add(at("j" + i, "{\"n\":" + i + "}", due));
    }
    broker.enqueueAll(jobs);
    assertEquals(JOBS, probe.delayedIds().size());
    probe.awaitRedisTimePast(due);

    Map<String, Integer> runs = new ConcurrentHashMap<>();
    Map<String, String> seenRecord = new ConcurrentHashMap<>();
    List<String> breaches = new CopyOnWriteArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    threads.add(loop(stop, () -> broker.scheduling().moveDueToReady(50)));
    for (String consumer : List.of("c1", "c2")) {
      threads.add(loop(stop, () -> {
        for (Claimed c : broker.claims().claimReady(consumer, 30_000, 5, null).jobs()) {
          runs.merge(c.id(), 1, Integer::sum);
          seenRecord.put(c.id(), c.rawRecord());
          broker.acks().ackAll(List.of(new Report(consumer, null, List.of(c.delivery()))));
        }
      }));
    }
    threads.add(loop(stop, () -> breaches.addAll(snapshotBreaches())));

    Map<String, Boolean> edited = new ConcurrentHashMap<>();
    int changed = 0;
    for (int i = 0; i < JOBS; i++) {
      String id = "j" + i;
      PendingChange c = switch (i % 3) {
        case 0 -> broker.changePending(id, DueChange.NOW, 0, null);
        case 1 -> broker.changePending(id, DueChange.DELAY, 200, null);
        default -> broker.changePending(id, DueChange.KEEP, 0, "{\"n\":" + i + ",\"edited\":true}");
      };
      assertTrue(List.of("delayed", "ready", "running", "unknown").contains(c.place()), id + ": " + c);
      if (c.place().equals("delayed") || c.place().equals("ready")) {
        changed++;
        if (i % 3 == 2) {
          edited.put(id, true);
        }
      }
    }

    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() == JOBS);
    Thread.sleep(200);
    stop.set(true);
    for (Thread t : threads) {
      t.join(5_000);
    }

    assertEquals(List.of(), breaches.stream().distinct().limit(10).toList(), "no snapshot may hold an id twice or without its record");
    assertEquals(List.of(), invariant.breaches());
    assertEquals(0, probe.recordCount());
    for (int i = 0; i < JOBS; i++) {
      String id = "j" + i;
      assertEquals(1, runs.get(id), id + " runs exactly once");
      if (edited.containsKey(id)) {
        assertTrue(seenRecord.get(id).endsWith("\"edited\":true}}"), id + " ran with its edited payload");
      }
    }
    assertTrue(changed > 0, "some changes won the race");
  }

  /**
   * One atomic snapshot (MULTI) of every place a job of this test can be, the two consumers'
   * lists included: each id with a record in exactly one place, each placed id with a record.
   */
  private List<String> snapshotBreaches() {
    Keys k = broker.keys();
    redis.clients.jedis.Response<Object> delayed;
    redis.clients.jedis.Response<List<String>> ready;
    redis.clients.jedis.Response<List<String>> c1;
    redis.clients.jedis.Response<List<String>> c2;
    redis.clients.jedis.Response<java.util.Set<String>> records;
    // the time wheel's ids, read by readDelayed.lua in the same transaction (loaded by the probe)
    probe.delayedIds();
    try (redis.clients.jedis.AbstractTransaction tx = RedisFixture.get().redis().multi()) {
      delayed = tx.evalsha(Script.READ_DELAYED.sha(), List.of(k.delayed()),
          List.of("range", "-inf", "+inf", "0", Integer.toString(JOBS)));
      ready = tx.lrange(k.ready(), 0, -1);
      c1 = tx.lrange(k.inFlight("c1"), 0, -1);
      c2 = tx.lrange(k.inFlight("c2"), 0, -1);
      records = tx.hkeys(k.jobs());
      tx.exec();
    }
    Map<String, Integer> places = new java.util.HashMap<>();
    List<String> delayedIds = new ArrayList<>();
    List<?> flat = (List<?>) delayed.get();
    for (int i = 0; i < flat.size(); i += 2) {
      delayedIds.add((String) flat.get(i));
    }
    for (List<String> place : List.of(delayedIds, ready.get(), c1.get(), c2.get())) {
      for (String element : place) {
        places.merge(Delivery.idOf(element), 1, Integer::sum);
      }
    }
    List<String> found = new ArrayList<>();
    places.forEach((id, n) -> {
      if (n > 1) {
        found.add(id + " in " + n + " places");
      }
      if (!records.get().contains(id)) {
        found.add(id + " placed without a record");
      }
    });
    for (String id : records.get()) {
      if (!places.containsKey(id)) {
        found.add(id + ": a record in no place");
      }
    }
    return found;
  }

  private static Thread loop(AtomicBoolean stop, Runnable pass) {
    Thread t = new Thread(() -> {
      while (!stop.get()) {
        pass.run();
      }
    });
    t.setDaemon(true);
    t.start();
    return t;
  }
}
