package dev.delayq.supervisor.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.metrics.StatsRecorder;
import dev.delayq.redis.Admin;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.Keys;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.Workflows;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/** What a scrape writes for counts a worker's StatsRecorder flushed into the test Redis. */
class WebQueueCollectorTest {

  private static String scrape(UnifiedJedis redis, Keys keys) throws Exception {
    return scrape(redis, keys, new TypeCap(50));
  }

  private static String scrape(UnifiedJedis redis, Keys keys, TypeCap cap) throws Exception {
    PrometheusRegistry registry = new PrometheusRegistry();
    registry.register(new QueueCollector(redis, keys, new Admin(redis, keys, 3), cap));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ExpositionFormats.init().getPrometheusTextFormatWriter().write(out, registry.scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void flushedCountsBecomeCountersAndCumulativeHistogramsInSeconds() throws Exception {
    UnifiedJedis redis = RedisFixture.get().redis();
    Keys keys = RedisFixture.freshKeys();
    StatsRecorder recorder = new StatsRecorder(keys);
    recorder.started("mail", 0);      // bucket le=0.001
    recorder.started("mail", 7);      // le=0.01
    recorder.started("mail", 7000);   // le=10
    recorder.finished("mail", StatsRecorder.Event.SUCCEEDED, 30);
    recorder.finished("mail", StatsRecorder.Event.FAILED, 70_000);
    recorder.also("mail", StatsRecorder.Event.RETRIED);
    recorder.flush(redis, System.currentTimeMillis() / 1000);

    String m = scrape(redis, keys);
    String q = "queue=\"" + keys.queue() + "\"";
    assertTrue(m.contains("delayq_jobs_started_total{" + q + ",type=\"mail\"} 3.0"), m);
    assertTrue(m.contains("delayq_jobs_succeeded_total{" + q + ",type=\"mail\"} 1.0"), m);
    assertTrue(m.contains("delayq_jobs_failed_total{" + q + ",type=\"mail\"} 1.0"), m);
    assertTrue(m.contains("delayq_jobs_retried_total{" + q + ",type=\"mail\"} 1.0"), m);
    assertTrue(m.contains("delayq_job_lateness_seconds_bucket{" + q + ",le=\"0.001\"} 1\n"), m);
    assertTrue(m.contains("delayq_job_lateness_seconds_bucket{" + q + ",le=\"0.005\"} 1\n"), m);
    assertTrue(m.contains("delayq_job_lateness_seconds_bucket{" + q + ",le=\"0.01\"} 2\n"), m);
    assertTrue(m.contains("delayq_job_lateness_seconds_bucket{" + q + ",le=\"10.0\"} 3\n"), m);
    assertTrue(m.contains("delayq_job_lateness_seconds_bucket{" + q + ",le=\"+Inf\"} 3\n"), m);
    assertTrue(m.contains("delayq_job_lateness_seconds_count{" + q + "} 3\n"), m);
    assertTrue(m.contains("delayq_job_lateness_seconds_sum{" + q + "} 7.007\n"), m);
    assertTrue(m.contains("delayq_job_duration_seconds_bucket{" + q + ",type=\"mail\",le=\"0.05\"} 1\n"), m);
    assertTrue(m.contains("delayq_job_duration_seconds_bucket{" + q + ",type=\"mail\",le=\"60.0\"} 1\n"), m);
    assertTrue(m.contains("delayq_job_duration_seconds_bucket{" + q + ",type=\"mail\",le=\"+Inf\"} 2\n"), m);
    assertTrue(m.contains("delayq_job_duration_seconds_sum{" + q + ",type=\"mail\"} 70.03\n"), m);
    assertTrue(m.contains("delayq_queue_jobs{" + q + ",state=\"delayed\"} 0.0"), m);
    assertTrue(m.contains("delayq_redis_up{" + q + "} 1.0"), m);
  }

  @Test
  void countersOfATypeThatHaveSeenNoEventYetAreZero() throws Exception {
    UnifiedJedis redis = RedisFixture.get().redis();
    Keys keys = RedisFixture.freshKeys();
    StatsRecorder recorder = new StatsRecorder(keys);
    recorder.started("mail", 3);
    recorder.finished("mail", StatsRecorder.Event.SUCCEEDED, 5);
    recorder.flush(redis, System.currentTimeMillis() / 1000);

    String m = scrape(redis, keys);
    String series = "{queue=\"" + keys.queue() + "\",type=\"mail\"}";
    assertTrue(m.contains("delayq_jobs_succeeded_total" + series + " 1.0"), m);
    for (String event : QueueCollector.EVENT_ORDER) {
      if (!event.equals("started") && !event.equals("succeeded")) {
        assertTrue(m.contains("delayq_jobs_" + event + "_total" + series + " 0.0"), event + ": " + m);
      }
    }
  }

  @Test
  void typesPastTheCapAreSummedAsOtherAndTheFirstKeepTheirSeries() throws Exception {
    UnifiedJedis redis = RedisFixture.get().redis();
    Keys keys = RedisFixture.freshKeys();
    StatsRecorder recorder = new StatsRecorder(keys);
    for (int i = 0; i < 3; i++) {
      recorder.started("busy", 1);      // the busiest: admitted first
    }
    recorder.started("quiet", 1);
    recorder.finished("busy", StatsRecorder.Event.SUCCEEDED, 10);
    recorder.flush(redis, System.currentTimeMillis() / 1000);
    TypeCap cap = new TypeCap(2);
    scrape(redis, keys, cap);

    // a flood of new types, as any Redis client could write: each past the cap counts as other
    for (int i = 0; i < 200; i++) {
      recorder.started("flood-" + i, 1);
      recorder.finished("flood-" + i, StatsRecorder.Event.FAILED, 20);
    }
    recorder.finished("quiet", StatsRecorder.Event.SUCCEEDED, 10);
    recorder.flush(redis, System.currentTimeMillis() / 1000);
    String m = scrape(redis, keys, cap);

    String q = "queue=\"" + keys.queue() + "\"";
    assertTrue(m.contains("delayq_jobs_started_total{" + q + ",type=\"busy\"} 3.0"), m);
    assertTrue(m.contains("delayq_jobs_succeeded_total{" + q + ",type=\"quiet\"} 1.0"), "admitted types keep theirs");
    assertTrue(m.contains("delayq_jobs_started_total{" + q + ",type=\"other\"} 200.0"), m);
    assertTrue(m.contains("delayq_jobs_failed_total{" + q + ",type=\"other\"} 200.0"), m);
    assertTrue(m.contains("delayq_job_duration_seconds_count{" + q + ",type=\"other\"} 200\n"), m);
    assertFalse(m.contains("flood-"), "no series of its own for any type past the cap");
    assertEquals(3, m.lines().filter(l -> l.startsWith("delayq_jobs_started_total{")).count(), m);
  }

  @Test
  void pausesHeldJobsAndTheLatenessOfHeldJobsHaveSeriesOfTheirOwn() throws Exception {
    UnifiedJedis redis = RedisFixture.get().redis();
    Keys keys = RedisFixture.freshKeys();
    StatsRecorder recorder = new StatsRecorder(keys);
    recorder.started("mail", 3);
    recorder.startedAfterHold("pay", 7000);
    recorder.flush(redis, System.currentTimeMillis() / 1000);
    redis.hset(keys.paused(), "pay", "1");
    redis.lpush(keys.held("pay"), "p1", "p2");
    redis.sadd(keys.heldIndex(), "pay");

    String m = scrape(redis, keys);
    String q = "queue=\"" + keys.queue() + "\"";
    assertTrue(m.contains("delayq_paused{" + q + ",type=\"pay\"} 1.0"), m);
    assertTrue(m.contains("delayq_held_jobs{" + q + ",type=\"pay\"} 2.0"), m);
    assertTrue(m.contains("delayq_job_held_lateness_seconds_count{" + q + "} 1\n"), m);
    assertTrue(m.contains("delayq_job_lateness_seconds_count{" + q + "} 1\n"), "a held job's lateness is not in the SLO's");
    assertTrue(m.contains("delayq_jobs_started_total{" + q + ",type=\"pay\"} 1.0"), m);
  }

  @Test
  void aShardedQueuesHeldJobsAreSummedAndAPausePartDoneIsTheShareOfItsShards() throws Exception {
    UnifiedJedis redis = RedisFixture.get().redis();
    Keys keys = Keys.sharded("delayq", RedisFixture.freshQueue(), 3);
    for (Keys shard : keys.allShards()) {
      redis.hset(shard.paused(), "*", "1");
      redis.lpush(shard.held("pay"), "p" + shard.shard());
      redis.sadd(shard.heldIndex(), "pay");
    }
    redis.hset(keys.shard(0).paused(), "mail", "1");
    redis.hset(keys.shard(2).paused(), "mail", "1"); // shard 1 did not take the pause of mail

    String m = scrape(redis, keys);
    String q = "queue=\"" + keys.queue() + "\"";
    assertTrue(m.contains("delayq_paused{" + q + ",type=\"*\"} 1.0"), m);
    assertTrue(m.contains("delayq_paused{" + q + ",type=\"mail\"} 0.6666666666666666"), m);
    assertTrue(m.contains("delayq_held_jobs{" + q + ",type=\"pay\"} 3.0"), m);
  }

  @Test
  void jobsWaitingForOtherJobsAndOpenBatchesHaveGaugesOfTheirOwn() throws Exception {
    UnifiedJedis redis = RedisFixture.get().redis();
    Keys keys = RedisFixture.freshKeys();
    String q = "queue=\"" + keys.queue() + "\"";
    assertTrue(scrape(redis, keys).contains("delayq_jobs_waiting{" + q + "} 0.0"), "0 before any workflow");
    Workflows flows = RedisFixture.get().broker(keys).workflows();
    flows.openBatch("b1");
    flows.openBatch("b2");
    flows.enqueue("b1", List.of(flowJob("a", ",\"b\":\"b1\"")));
    flows.enqueue(null, List.of(flowJob("w1", "", "a"), flowJob("w2", "", "a")));

    String m = scrape(redis, keys);

    assertTrue(m.contains("delayq_jobs_waiting{" + q + "} 2.0"), m);
    assertTrue(m.contains("delayq_batches_open{" + q + "} 2.0"), m);
    assertTrue(m.contains("delayq_queue_jobs{" + q + ",state=\"ready\"} 1.0"), "waiting jobs are not ready: " + m);
  }

  private static Workflows.FlowJob flowJob(String id, String extra, String... waits) {
    return new Workflows.FlowJob(new NewJob(id, JobRecord.newHead(QueueProbe.TYPE, 3, false, Map.of(), extra + ",\"wf\":1"),
        "{}", 0, false), List.of(waits), "fail");
  }

  @Test
  void redisDownLeavesOnlyRedisUpZero() throws Exception {
    Keys keys = RedisFixture.freshKeys();
    try (UnifiedJedis dead = RedisClient.create("127.0.0.1", 1)) {
      String m = scrape(dead, keys);
      assertTrue(m.contains("delayq_redis_up{queue=\"" + keys.queue() + "\"} 0.0"), m);
      assertEquals(-1, m.indexOf("delayq_queue_jobs"), m);
    }
  }

  @Test
  void aSeriesWithANegativeValueIsLeftOutAndTheScrapeServesTheRest() throws Exception {
    UnifiedJedis redis = RedisFixture.get().redis();
    Keys keys = RedisFixture.freshKeys();
    StatsRecorder recorder = new StatsRecorder(keys);
    recorder.started("mail", 3);
    recorder.finished("mail", StatsRecorder.Event.SUCCEEDED, 5);
    recorder.flush(redis, System.currentTimeMillis() / 1000);
    redis.hset(keys.stats(), "lateness:3", "-5");            // planted by another client
    redis.hset(keys.stats(), "duration:mail:2", "-1");
    redis.hset(keys.stats(), "count:failed:mail", "-2");
    redis.hset(keys.stats(), "count:retried:mail", "abc");
    redis.hset(keys.stats(), "heldLateness:sum", "1e3");

    String m = scrape(redis, keys);

    String q = "queue=\"" + keys.queue() + "\"";
    assertFalse(m.contains("delayq_job_lateness_seconds_bucket{" + q), m);
    assertFalse(m.contains("delayq_job_duration_seconds_bucket{" + q + ",type=\"mail\""), m);
    assertFalse(m.contains("delayq_jobs_failed_total{" + q + ",type=\"mail\"}"), m);
    assertTrue(m.contains("delayq_jobs_succeeded_total{" + q + ",type=\"mail\"} 1.0"), m);
    assertFalse(m.contains("delayq_jobs_retried_total{" + q + ",type=\"mail\"}"), "no made-up 0: " + m);
    assertFalse(m.contains("delayq_job_held_lateness_seconds_count{" + q), m);
    assertTrue(m.contains("delayq_jobs_started_total{" + q + ",type=\"mail\"} 1.0"), m);
    assertTrue(m.contains("delayq_queue_jobs{" + q + ",state=\"delayed\"} 0.0"), m);
    assertTrue(m.contains("delayq_redis_up{" + q + "} 1.0"), m);
  }
}
