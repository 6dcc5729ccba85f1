package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** handOffUnstarted.lua through {@link RedisBroker#handOffUnstarted}. */
class HandOffUnstartedScriptTest {
  private static final long TTL_MS = 30_000;

  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  private List<Claimed> claimFour() {
    for (int i = 1; i <= 5; i++) {
      probe.seedReady("job-" + i);
    }
    return broker.claims().claimReady("c1", TTL_MS, 4, null).jobs();
  }

  @Test
  void theJobsBehindTheRunningOneGoBackToReadyToRunNextInClaimOrder() {
    List<Claimed> batch = claimFour();

    int n = broker.acks().handOffUnstarted("c1", batch.subList(1, 4).stream().map(Claimed::delivery).toList());

    assertEquals(3, n);
    assertEquals(List.of("job-1"), probe.inFlightIds("c1"), "the running one stays");
    assertEquals(List.of("job-5", "job-4", "job-3", "job-2"), probe.readyIds(), "job-2 at the right end: next");
    for (String id : List.of("job-2", "job-3", "job-4")) {
      assertEquals(List.of("ready"), probe.placesOf(id), id + " is in exactly one place");
    }
    assertEquals(5, probe.recordCount(), "records untouched");
    assertEquals(List.of("job-2"), broker.claims().claimReady("c2", TTL_MS, 1, null).jobs().stream()
        .map(Claimed::id).toList());
  }

  @Test
  void aDeliveryNoLongerInTheListIsPassedOver() {
    List<Claimed> batch = claimFour();
    List<Delivery> rest = batch.subList(1, 4).stream().map(Claimed::delivery).toList();
    broker.acks().handOffUnstarted("c1", rest);

    assertEquals(0, broker.acks().handOffUnstarted("c1", rest), "already given back: nothing twice");
    assertEquals(List.of("job-5", "job-4", "job-3", "job-2"), probe.readyIds());
  }

  /** On a queue of several shards the jobs go back to the ready list of the shard they were claimed in. */
  @Test
  void onAShardedQueueTheJobsGoBackToTheirOwnShardsReady() {
    Keys keys = new Keys("delayq", RedisFixture.freshQueue(), 3, 0);
    RedisBroker sharded = RedisFixture.get().broker(keys);
    List<String> ids = new java.util.ArrayList<>();
    for (int i = 0; ids.size() < 3; i++) {
      if (keys.shardIndexOf("job-" + i) == 2) {
        ids.add("job-" + i);
      }
    }
    for (String id : ids) { // already due: straight to their shard's ready
      assertTrue(sharded.enqueue(QueueProbe.at(id, "{\"n\":1}", probe.redisNowMs() - 1_000)).accepted());
    }
    List<Claimed> batch = sharded.claims().claimReady("c1", TTL_MS, 3, null, 2, 1).jobs();
    assertEquals(3, batch.size());

    int n = sharded.acks().handOffUnstarted("c1", 2, batch.subList(1, 3).stream().map(Claimed::delivery).toList());

    assertEquals(2, n);
    assertEquals(List.of(batch.get(2).id(), batch.get(1).id()),
        RedisFixture.get().redis().lrange(keys.shard(2).ready(), 0, -1), "the next to run at the right end");
    assertEquals(1, RedisFixture.get().redis().llen(keys.shard(2).inFlight("c1")), "the running one stays");
    for (int shard = 0; shard < 2; shard++) {
      assertTrue(RedisFixture.get().redis().lrange(keys.shard(shard).ready(), 0, -1).isEmpty(), "nothing in shard " + shard);
    }
  }
}
