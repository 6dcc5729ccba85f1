package dev.delayq.supervisor.web;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.Admin;
import dev.delayq.redis.HandlerWait;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/** Jobs waiting for a handler as /metrics counts them. */
class WebWaitingForHandlerTest {

  @Test
  void aScrapeCountsTheJobsWaitingForAHandlerPerQueue() throws Exception {
    UnifiedJedis redis = RedisFixture.get().redis();
    Keys keys = RedisFixture.freshKeys();
    RedisBroker broker = RedisFixture.get().broker(keys);
    QueueProbe probe = new QueueProbe(broker);
    String q = "{queue=\"" + keys.queue() + "\"}";
    assertTrue(scrape(redis, keys).contains("delayq_jobs_waiting_for_handler" + q + " 0.0"));

    HandlerWait wait = broker.handlerWait();
    wait.leave("c1", probe.seedInFlight("c1", "j1"), QueueProbe.TYPE);
    wait.leave("c1", probe.seedInFlight("c1", "j2"), QueueProbe.TYPE);

    String m = scrape(redis, keys);
    assertTrue(m.contains("delayq_jobs_waiting_for_handler" + q + " 2.0"), m);
  }

  private static String scrape(UnifiedJedis redis, Keys keys) throws Exception {
    PrometheusRegistry registry = new PrometheusRegistry();
    registry.register(new QueueCollector(redis, keys, new Admin(redis, keys, 3), new TypeCap(50)));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ExpositionFormats.init().getPrometheusTextFormatWriter().write(out, registry.scrape());
    return out.toString(StandardCharsets.UTF_8);
  }
}
