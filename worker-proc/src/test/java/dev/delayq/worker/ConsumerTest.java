package dev.delayq.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.job.RetryPolicy;
import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import dev.delayq.worker.testjobs.BoomHandler;
import dev.delayq.worker.testjobs.GateHandler;
import dev.delayq.testing.HandlerJar;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One {@link Consumer} thread on a real Redis, with the handlers found on the classpath. */
class ConsumerTest {
  private static final String CONSUMER = "worker-1:1:1";
  private static final Consumer.Settings SETTINGS = new Consumer.Settings(0.1, 30_000, 10,
      Duration.ofSeconds(5), RetryPolicy.defaults());

  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final AtomicBoolean quiet = new AtomicBoolean();
  private final Watchdog watchdog = new Watchdog(1_000_000_000L, () -> {});
  private Thread thread;

  @TempDir
  Path jobsDir;

  private void start(HandlerRegistry handlers) {
    Finisher finisher = new Finisher(broker, new RedisOutage("test/finisher"), () -> false);
    Consumer consumer = new Consumer(CONSUMER, broker, handlers, finisher, SETTINGS, quiet::get,
        watchdog, new StatsRecorder(broker.keys()), new OutageLog("test"),
        new FailoverResync(broker, () -> 0L, finisher));
    thread = new Thread(consumer, "test/consumer-1");
    thread.setDaemon(true);
    thread.start();
  }

  private void startWithClasspathHandlers() {
    start(HandlerRegistry.load(jobsDir.resolve("absent")));
  }

  @AfterEach
  void stop() throws InterruptedException {
    quiet.set(true);
    GateHandler.open();
    if (thread != null) {
      thread.join(5_000);
      assertFalse(thread.isAlive(), "the consumer stops claiming when told to be quiet");
    }
    watchdog.close();
  }

  private static RedisBroker.NewJob due(String id, String type, long dueAt) {
    return new RedisBroker.NewJob(id, QueueProbe.head(type, QueueProbe.MAX_ATTEMPTS), "{\"n\":1}", dueAt, true);
  }

  private JsonNode awaitDead(String id) {
    await().atMost(Duration.ofSeconds(5)).until(() -> probe.placesOf(id).equals(List.of("dead")));
    return probe.record(id);
  }

  @Test
  void backlogOfNoopJobsIsAllAcknowledged() {
    long now = probe.redisNowMs();
    List<RedisBroker.NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      jobs.add(due("noop-" + i, "noop", now - 1_000));
    }
    broker.enqueueAll(jobs);
    assertEquals(250, probe.readyIds().size());

    startWithClasspathHandlers();

    await().atMost(Duration.ofSeconds(10)).until(() -> probe.recordCount() == 0);
    assertEquals(List.of(), probe.readyIds());
    assertEquals(List.of(), probe.inFlightIds(CONSUMER));
    assertEquals(List.of(), probe.deadIds());
    assertNotNull(probe.consumerExpiry(CONSUMER), "a claiming consumer is registered");
  }

  @Test
  void jobOfAnUnknownTypeGoesToDeadSayingSo() {
    probe.seedReady(due("mystery", "nobody_handles_this", probe.redisNowMs() - 1_000));

    startWithClasspathHandlers();

    JsonNode record = awaitDead("mystery");
    String error = record.get("lastError").asText();
    assertTrue(error.contains("no handler for job type 'nobody_handles_this'"), error);
    assertTrue(error.contains("noop, order_close, stock_release"), "names the known types: " + error);
    assertEquals(List.of(), probe.inFlightIds(CONSUMER));
  }

  @Test
  void malformedRecordGoesToDeadSayingSo() {
    broker.redis().hset(broker.keys().jobs(), "garbled", "{this is not a record");
    broker.redis().lpush(broker.keys().ready(), "garbled");

    startWithClasspathHandlers();

    JsonNode record = awaitDead("garbled");
    assertTrue(record.get("lastError").asText().contains("malformed"), record.toString());
    assertEquals("{this is not a record", record.get("malformed").asText(), "kept verbatim for inspection");
  }

  @Test
  void failingJobGoesBackToDelayedWithAttemptPlusOne() throws IOException {
    HandlerJar.write(jobsDir, "boom.jar", BoomHandler.class);
    probe.seedReady(due("fails", "boom", probe.redisNowMs() - 1_000));

    start(HandlerRegistry.load(jobsDir));

    await().atMost(Duration.ofSeconds(5)).until(() -> probe.placesOf("fails").equals(List.of("delayed")));
    JsonNode record = probe.record("fails");
    assertEquals(2, record.get("attempt").asInt());
    assertTrue(record.get("lastError").asText().startsWith("attempt 1/5: java.lang.IllegalStateException: boom on attempt 1"),
        record.get("lastError").asText());
  }

  @Test
  void goodJobsBehindABadOneStillRun() {
    long now = probe.redisNowMs();
    probe.seedReady(due("mystery", "nobody_handles_this", now - 1_000));
    broker.redis().hset(broker.keys().jobs(), "garbled", "]");
    broker.redis().lpush(broker.keys().ready(), "garbled");
    broker.enqueueAll(List.of(due("ok-1", "noop", now - 1_000), due("ok-2", "order_close", now - 1_000)));

    startWithClasspathHandlers();

    await().atMost(Duration.ofSeconds(5)).until(() -> probe.recordCount() == 2 && probe.deadIds().size() == 2);
    assertEquals(List.of(), probe.placesOf("ok-1"));
    assertEquals(List.of(), probe.placesOf("ok-2"));
    assertEquals(List.of(), probe.readyIds());
  }

  @Test
  void finishedJobIsAcknowledgedWhileASlowerJobOfItsBatchStillRuns() throws IOException {
    HandlerJar.write(jobsDir, "gate.jar", GateHandler.class);
    GateHandler.close();
    long now = probe.redisNowMs();
    probe.seedReady(due("fast", "noop", now - 1_000));
    probe.seedReady(due("slow", "gate", now - 1_000));

    start(HandlerRegistry.load(jobsDir));

    await().atMost(Duration.ofSeconds(5)).until(GateHandler::isRunning);
    assertEquals(List.of(), probe.readyIds(), "both were claimed in one batch, fast first");
    // Consumer.ACK_DELAY_NANOS promises finished jobs wait at most 50 ms for their ack
    await().atMost(Duration.ofSeconds(1)).until(() -> probe.rawRecord("fast") == null);
  }

  @Test
  void quietConsumerFinishesTheJobInHandAndGivesBackTheRestOfItsBatchUncounted() throws IOException {
    HandlerJar.write(jobsDir, "gate.jar", GateHandler.class);
    GateHandler.close();
    long now = probe.redisNowMs();
    for (int i = 0; i < 5; i++) {
      probe.seedReady(due("gated-" + i, "gate", now - 1_000));
    }

    start(HandlerRegistry.load(jobsDir));
    await().atMost(Duration.ofSeconds(5)).until(GateHandler::isRunning);
    assertEquals(5, probe.inFlightIds(CONSUMER).size(), "the five were claimed in one batch");
    quiet.set(true);
    GateHandler.open();

    await().atMost(Duration.ofSeconds(5)).until(() -> probe.recordCount() == 4
        && probe.readyIds().size() == 4 && probe.inFlightIds(CONSUMER).isEmpty());
    for (String id : probe.readyIds()) {
      assertEquals(1, probe.record(id).path("attempt").asInt(1), id + " was not counted as an attempt");
      assertFalse(probe.record(id).has("lost"), id + " was not counted as lost");
    }
  }
}
