package dev.delayq.supervisor;

import dev.delayq.redis.Ack;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.NewJob;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.process.RunningFile;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.ListDirection;

/** Instant recovery against the real Redis: what a dead worker process held goes back to ready. */
class InstantRecoveryTest {
  private UnifiedJedis redis;
  private Keys keys;
  private RedisBroker broker;
  private InstantRecovery recovery;

  @TempDir
  Path runDir;

  @BeforeEach
  void freshQueue() {
    redis = RedisFixture.get().redis();
    keys = RedisFixture.freshKeys();
    broker = RedisFixture.get().broker(keys);
    recovery = new InstantRecovery(broker, new Inspector(redis, keys), 3, "h1", runDir);
  }

  private String readyJob(String id) {
    broker.enqueue(new NewJob(id, "{\"type\":\"t\",\"maxAttempts\":5", "{}", 0, false));
    broker.scheduling().moveDueToReady(1000);
    assertTrue(redis.lrange(keys.ready(), 0, -1).contains(id), id + " is ready");
    return id;
  }

  private String attemptOf(String id) {
    try {
      return Integer.toString(JobRecord.parse(id, redis.hget(keys.jobs(), id)).attempt());
    } catch (JobRecord.MalformedRecordException e) {
      throw new AssertionError(e.getMessage(), e);
    }
  }

  private List<String> idsIn(String consumer) {
    return redis.lrange(keys.inFlight(consumer), 0, -1).stream().map(Delivery::idOf).toList();
  }

  @Test
  void theCrashRecordTheWorkerLeftDecidesWhichJobWasRunning() {
    readyJob("finished");
    readyJob("running");
    readyJob("prefetched");
    List<Claimed> batch = broker.claims().claimReady("worker-1@h1:4244:1", 30_000, 3, null).jobs();
    // the worker had finished the first (its acknowledgement had not landed) and started the second
    RunningFile.create(RunningFile.pathFor(runDir, "worker-1", 4244), 4244, 1)
        .running(0, batch.get(1).delivery().element());

    recovery.workerGone("worker-1", 4244, 137, System.nanoTime());

    assertEquals("2", attemptOf("running"));
    assertEquals("1", attemptOf("finished"));
    assertEquals("1", attemptOf("prefetched"));
    assertFalse(RunningFile.exists(RunningFile.pathFor(runDir, "worker-1", 4244)), "the record is removed once read");
  }

  @Test
  void jobsOfAGoneWorkerAreReadyAgainWithTheNextAttemptAndItsLateAckIsFenced() {
    readyJob("a");
    String consumer = "worker-1@h1:4242:3";
    Claimed claimed = broker.claims().claim(consumer, 1, 30_000).orElseThrow();
    assertEquals(0, redis.llen(keys.ready()));

    recovery.workerGone("worker-1", 4242, 137, System.nanoTime());

    assertEquals(List.of("a"), redis.lrange(keys.ready(), 0, -1));
    assertEquals(0, redis.llen(keys.inFlight(consumer)));
    assertEquals("2", attemptOf("a"));
    assertTrue(redis.hget(keys.jobs(), "a").contains("worker-1 (pid 4242) exited with code 137"));
    assertEquals(Ack.FENCED, broker.acks().releaseClaimed(consumer, claimed.delivery()).ack(),
        "a late ack from the dead process deletes nothing");
    assertTrue(redis.hexists(keys.jobs(), "a"));
    assertFalse(redis.zrange(keys.consumers(), 0, -1).contains(consumer), "the consumer is unregistered");
  }

  @Test
  void onlyTheJobThatWasRunningIsChargedThePrefetchedOnesGoBackAsTheyWere() {
    readyJob("running");
    readyJob("prefetched-1");
    readyJob("prefetched-2");
    String consumer = "worker-1@h1:4243:1";
    assertEquals(3, broker.claims().claimReady(consumer, 30_000, 3, null).jobs().size());

    recovery.workerGone("worker-1", 4243, 137, System.nanoTime());

    assertEquals(List.of("prefetched-2", "prefetched-1", "running"), redis.lrange(keys.ready(), 0, -1));
    assertEquals("2", attemptOf("running"));
    assertEquals("1", attemptOf("prefetched-1"));
    assertEquals("1", attemptOf("prefetched-2"));
    assertFalse(redis.hget(keys.jobs(), "prefetched-1").contains("lost"));
  }

  @Test
  void jobInAnUnregisteredInFlightListIsRecoveredAfterACrash() {
    readyJob("b");
    String consumer = "worker-2@h1:777:1";
    // claimed by BLMOVE, then the process died before the claim script registered it
    redis.lmove(keys.ready(), keys.inFlight(consumer), ListDirection.RIGHT, ListDirection.LEFT);
    assertFalse(redis.zrange(keys.consumers(), 0, -1).contains(consumer));

    recovery.workerGone("worker-2", 777, 137, System.nanoTime());

    assertEquals(List.of("b"), redis.lrange(keys.ready(), 0, -1));
    assertEquals(0, redis.llen(keys.inFlight(consumer)));
  }

  @Test
  void onlyTheGoneProcessConsumersAreTouchedNotThoseOfTheSamePidOnAnotherHost() {
    readyJob("mine");
    broker.claims().claim("worker-1@h1:100:1", 1, 30_000);
    readyJob("other-pid");
    broker.claims().claim("worker-1@h1:101:1", 1, 30_000);
    readyJob("other-worker");
    broker.claims().claim("worker-10@h1:100:1", 1, 30_000);
    readyJob("other-host");
    broker.claims().claim("worker-1@h2:100:1", 1, 30_000);

    recovery.workerGone("worker-1", 100, 1, System.nanoTime());

    assertEquals(List.of("mine"), redis.lrange(keys.ready(), 0, -1));
    assertEquals(List.of("other-pid"), idsIn("worker-1@h1:101:1"));
    assertEquals(List.of("other-worker"), idsIn("worker-10@h1:100:1"));
    assertEquals(List.of("other-host"), idsIn("worker-1@h2:100:1"),
        "the same worker name and pid on another host is another process");
  }

  @Test
  void jobLostWithItsWorkerTooOftenGoesToDeadAsAPoisonPill() {
    readyJob("pill");
    for (int pid = 1; pid <= 3; pid++) {
      if (pid > 1) {
        assertEquals(List.of("pill"), redis.lrange(keys.ready(), 0, -1));
      }
      broker.claims().claim("worker-1@h1:" + pid + ":1", 1, 30_000);
      recovery.workerGone("worker-1", pid, 137, System.nanoTime());
    }
    assertEquals(0, redis.llen(keys.ready()));
    assertEquals(List.of("pill"), redis.zrange(keys.dead(), 0, -1));
    assertTrue(recovery.idle());
  }
}
