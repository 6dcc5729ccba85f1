package dev.delayq.worker;

import dev.delayq.redis.Batch;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.RequeueMode;
import dev.delayq.redis.Requeued;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.job.RetryPolicy;
import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.process.RunningFile;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.HandlerJar;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import dev.delayq.worker.testjobs.BadSettingsHandler;
import dev.delayq.worker.testjobs.BoomHandler;
import dev.delayq.worker.testjobs.CountingHandler;
import dev.delayq.worker.testjobs.EchoHandler;
import dev.delayq.worker.testjobs.GateHandler;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@link Consumer} on a real Redis. Most tests call {@link Consumer#pass()} on the test
 * thread, one step at a time; those with a handler that blocks run it under its loop.
 */
class ConsumerTest {
  private static final String CONSUMER = "worker-1:1:1";
  private static final Consumer.Settings SETTINGS = new Consumer.Settings(0.05, 30_000, 10);

  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final AtomicBoolean quiet = new AtomicBoolean();
  private final Watchdog watchdog = new Watchdog(1_000_000_000L, () -> {});
  private final AckSender acks = new AckSender(broker, new RedisOutage("test/acks"), () -> false);
  /** Renewed at the start of each test: the consumer owns its jobs, as under a beating heartbeat. */
  private Lease lease = new Lease(30_000_000_000L, 1_000_000_000L);
  /** The Redis master's epoch as the connection would report it; a test moves it for a failover. */
  private final AtomicLong masterEpoch = new AtomicLong();
  private RunningFile crashRecord;
  private Consumer.Settings settings = SETTINGS;
  private Consumer consumer;
  private Thread thread;

  @TempDir
  Path jobsDir;

  @BeforeEach
  void writeTestHandlers() throws IOException {
    acks.start(t -> { });
    lease.renewed(System.nanoTime());
    crashRecord = RunningFile.create(jobsDir.resolve("worker-1.1.running"), 1, 1);
    HandlerJar.write(jobsDir, "test-jobs.jar", BoomHandler.class, GateHandler.class, CountingHandler.class, EchoHandler.class,
        BadSettingsHandler.BadLimit.class, BadSettingsHandler.BadPolicy.class, BadSettingsHandler.Forever.class);
    CountingHandler.clear();
  }

  private Consumer consumer() {
    if (consumer == null) {
      StatsRecorder stats = new StatsRecorder(broker.keys());
      JobRunner runner = new JobRunner(HandlerRegistry.load(jobsDir), stats, Duration.ofSeconds(5),
          RetryPolicy.defaults());
      Consumer.Shared shared = new Consumer.Shared(broker, runner, watchdog, lease, acks,
          new Finisher(broker, new RedisOutage("test/finisher"), () -> false), crashRecord, stats,
          new FailoverResync(broker, masterEpoch::get));
      consumer = new Consumer(CONSUMER, 0, shared, settings, quiet::get, () -> false);
    }
    return consumer;
  }

  /** Runs the consumer under its loop on a thread of its own. */
  private void startThread() {
    thread = RunUntilShutdown.of("test/consumer-1", consumer()::pass).until(consumer()::isDone).build().start();
  }

  /** Steps the consumer on this thread until {@code done} holds (at most 200 steps). */
  private void passUntil(java.util.function.BooleanSupplier done) {
    for (int i = 0; i < 200 && !done.getAsBoolean(); i++) {
      consumer().pass();
    }
    assertTrue(done.getAsBoolean(), "not reached within 200 steps");
  }

  @AfterEach
  void stop() throws InterruptedException {
    quiet.set(true);
    GateHandler.open();
    if (thread != null) {
      thread.join(5_000);
      assertFalse(thread.isAlive(), "the consumer stops when told to be quiet");
    }
    acks.close();
    watchdog.close();
  }

  private static NewJob due(String id, String type) {
    return new NewJob(id, QueueProbe.head(type, QueueProbe.MAX_ATTEMPTS), "{\"n\":1}", 0, false);
  }

  private JsonNode deadRecord(String id) {
    passUntil(() -> probe.placesOf(id).equals(List.of("dead")));
    return probe.record(id);
  }

  @Test
  void backlogOfJobsIsAllRunAndAcknowledged() {
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      jobs.add(due("n-" + i, i % 2 == 0 ? "echo" : "count"));
    }
    broker.enqueueAll(jobs);

    for (int i = 0; i < 1_000 && probe.recordCount() > 0; i++) {
      consumer().pass();
    }

    assertEquals(0, probe.recordCount());
    assertEquals(125, CountingHandler.runs().size());
    assertEquals(List.of(), probe.readyIds());
    assertEquals(List.of(), probe.inFlightIds(CONSUMER));
    assertEquals(List.of(), probe.deadIds());
    assertNotNull(probe.consumerExpiry(CONSUMER), "a claiming consumer is registered");
  }

  @Test
  void eachJobIsAcknowledgedWhenTheNextStartsAndItsRunningMarkFollows() {
    broker.enqueueAll(List.of(due("a", "count"), due("b", "count"), due("c", "count")));

    consumer().pass(); // claims the three, a marked running
    List<String> claimed = probe.inFlightElements(CONSUMER);
    assertEquals(3, claimed.size());
    assertEquals(claimed.get(2), probe.runningMark(CONSUMER));

    consumer().pass(); // runs a
    assertEquals(List.of("a#1"), CountingHandler.runs());
    assertNotNull(probe.rawRecord("a"), "its acknowledgement goes with the next start");

    consumer().pass(); // starts and runs b; a's acknowledgement and b's mark go out together
    assertEquals(List.of("a#1", "b#1"), CountingHandler.runs());
    await().atMost(Duration.ofSeconds(5)).until(() -> probe.rawRecord("a") == null);
    assertEquals(claimed.get(1), probe.runningMark(CONSUMER));

    consumer().pass(); // runs c
    consumer().pass(); // claims again, acknowledging c: nothing left
    await().atMost(Duration.ofSeconds(5)).until(() -> probe.recordCount() == 0);
  }

  @Test
  void theCrashRecordNamesTheJobWhileItsHandlerRunsAndNothingBetweenJobs() {
    GateHandler.close();
    probe.seedReady(due("g", "gate"));
    Path record = jobsDir.resolve("worker-1.1.running");

    startThread();
    await().atMost(Duration.ofSeconds(5)).until(GateHandler::isRunning);
    assertEquals(java.util.Map.of(0, probe.inFlightElements(CONSUMER).get(0)), RunningFile.read(record));

    GateHandler.open();
    await().atMost(Duration.ofSeconds(5)).until(() -> probe.recordCount() == 0);
    assertEquals(java.util.Map.of(), RunningFile.read(record));
  }

  @Test
  void jobsClaimedBehindASlowOneAreHandedOffAndItRunsNoneOfThem() {
    GateHandler.close();
    broker.enqueueAll(List.of(due("g", "gate"), due("a", "count"), due("b", "count"), due("c", "count")));
    startThread(); // the only consumer registered: its fair share is all four
    await().atMost(Duration.ofSeconds(5)).until(GateHandler::isRunning);
    assertEquals(4, probe.inFlightIds(CONSUMER).size(), "g runs, a, b and c wait behind it");

    // what a parked consumer of its worker does when the watchdog says g runs long
    HandOffBook.Ticket ticket = consumer().handOffTicket();
    assertNotNull(ticket);
    consumer().handOffUnstarted(ticket);
    assertEquals(List.of("g"), probe.inFlightIds(CONSUMER));
    Batch idle = broker.claims().claimReady("worker-1:1:2", 30_000, 10, null, 0, 1, shard -> true, 3);
    assertEquals(List.of("a", "b", "c"), idle.jobs().stream().map(Claimed::id).toList(),
        "an idle consumer claims them, in order");

    GateHandler.open();
    await().atMost(Duration.ofSeconds(5)).until(() -> probe.rawRecord("g") == null);
    await().atMost(Duration.ofSeconds(5)).until(() -> probe.inFlightIds(CONSUMER).isEmpty());
    assertEquals(List.of(), CountingHandler.runs(), "it ran none of the jobs it handed off");
    assertEquals(List.of("c", "b", "a"), probe.inFlightIds("worker-1:1:2"), "they stay the other's");
    assertEquals(null, consumer().handOffTicket(), "nothing left to hand off");
  }

  @Test
  void consumerWhoseJobsWereTakenBackRunsOnlyTheOneInHandAndNoneOfTheRest() {
    broker.enqueueAll(List.of(due("a", "count"), due("b", "count"), due("c", "count")));
    lease = new Lease(30_000_000_000L, 1_000_000_000L); // never renewed: as after a long stop
    consumer().pass(); // claims a, b, c
    // it stalls past its heartbeat here; the recoverer takes its jobs back: a was marked running
    broker.consumerRegistry().requeueInFlight(CONSUMER, RequeueMode.GONE, "heartbeat expired", 3);
    assertEquals(2, probe.record("a").get("attempt").asInt());

    consumer().pass(); // runs a, the job in hand
    consumer().pass(); // b is refused: taken back
    assertEquals(List.of("a#1"), CountingHandler.runs(), "b and c did not run on the stale delivery");
    assertEquals(List.of("ready"), probe.placesOf("b"));

    passUntil(() -> probe.recordCount() == 0);
    assertEquals(List.of("a#1", "a#2", "b#1", "c#1"), CountingHandler.runs(),
        "claimed afresh: a again (its stale outcome did not land on the new claim), b and c once");
  }

  @Test
  void jobOfATypeThisWorkerHasNoHandlerForIsLeftUnchargedToAWorkerThatHasIt() {
    probe.seedReady(due("mystery", "nobody_handles_this"));
    String before = probe.rawRecord("mystery");

    passUntil(() -> broker.handlerWait().isWaiting("mystery", "nobody_handles_this"));

    assertEquals(List.of(), probe.placesOf("mystery"), "neither dead nor anywhere else: waiting for a handler");
    assertEquals(before, probe.rawRecord("mystery"), "no attempt counted");
    assertEquals(List.of(), probe.inFlightIds(CONSUMER));
  }

  @Test
  void malformedRecordGoesToDeadSayingSo() {
    RedisFixture.get().redis().hset(broker.keys().jobs(), "garbled", "{this is not a record");
    RedisFixture.get().redis().lpush(broker.keys().ready(), "garbled");

    JsonNode record = deadRecord("garbled");

    assertTrue(record.get("lastError").asText().contains("malformed"), record.toString());
    assertEquals("{this is not a record", record.get("malformed").asText(), "kept verbatim for inspection");
  }

  @Test
  void anEmptyRecordGoesToDeadSayingSoAndTheJobsBesideItRun() {
    probe.seedReady(due("before", "echo"));
    RedisFixture.get().redis().hset(broker.keys().jobs(), "blank", "");
    RedisFixture.get().redis().lpush(broker.keys().ready(), "blank");
    probe.seedReady(due("after", "echo"));

    JsonNode record = deadRecord("blank");

    assertTrue(record.get("lastError").asText().contains("malformed"), record.toString());
    assertEquals("", record.get("malformed").asText(), "kept verbatim for inspection");
    passUntil(() -> probe.recordCount() == 1);
    assertEquals(List.of("dead"), probe.placesOf("blank"), "in dead once; the jobs beside it ran");
  }

  @Test
  void failingJobGoesBackToDelayedWithAttemptPlusOne() {
    probe.seedReady(due("fails", "boom"));

    passUntil(() -> probe.placesOf("fails").equals(List.of("delayed")));

    JsonNode record = probe.record("fails");
    assertEquals(2, record.get("attempt").asInt());
    assertTrue(record.get("lastError").asText().startsWith("attempt 1/5: java.lang.IllegalStateException: boom on attempt 1"),
        record.get("lastError").asText());
  }

  @Test
  void handlerWhoseTimeLimitThrowsHasItsJobRetriedWithThatReasonAndTheConsumerGoesOn() {
    broker.enqueueAll(List.of(due("limited", "bad_limit"), due("after", "count")));

    passUntil(() -> probe.placesOf("limited").equals(List.of("delayed")) && probe.rawRecord("after") == null);

    JsonNode record = probe.record("limited");
    assertEquals(2, record.get("attempt").asInt());
    String error = record.get("lastError").asText();
    assertTrue(error.startsWith("attempt 1/5: failed outside the handler: java.lang.IllegalStateException: "
        + "no limit configured for bad_limit"), error);
    assertEquals(List.of("after#1"), CountingHandler.runs());
  }

  @Test
  void handlerWhoseRetryPolicyThrowsIsRetriedByTheConfiguredPolicy() {
    probe.seedReady(due("p", "bad_policy"));
    long before = probe.redisNowMs();

    passUntil(() -> probe.placesOf("p").equals(List.of("delayed")));

    assertTrue(probe.record("p").get("lastError").asText().contains("bad_policy fails on attempt 1"));
    long wait = probe.dueAt("p") - before;
    assertTrue(wait >= 1_600 && wait <= 2_400 + 1_000, "the default 2 s +/- 20 %, waited " + wait);
  }

  @Test
  void rescheduleTooFarForMillisecondsFailsTheAttemptWithTheReason() {
    probe.seedReady(due("far", "forever"));

    passUntil(() -> probe.placesOf("far").equals(List.of("delayed")));

    String error = probe.record("far").get("lastError").asText();
    // the handler's own JobResult.rescheduleIn refuses a delay past the range of due times
    assertTrue(error.startsWith("attempt 1/5: java.lang.IllegalArgumentException: delay 9223372036854775807s is too long: "
        + "due times run from the epoch"), error);
  }

  @Test
  void goodJobsBehindABadOneStillRun() {
    probe.seedReady(due("mystery", "nobody_handles_this"));
    RedisFixture.get().redis().hset(broker.keys().jobs(), "garbled", "]");
    RedisFixture.get().redis().lpush(broker.keys().ready(), "garbled");
    broker.enqueueAll(List.of(due("ok-1", "echo"), due("ok-2", "count")));

    // the garbled one dead, the one of a type no handler here runs left waiting for one
    passUntil(() -> probe.recordCount() == 2 && probe.deadIds().size() == 1
        && broker.handlerWait().isWaiting("mystery", "nobody_handles_this"));

    assertEquals(List.of(), probe.placesOf("ok-1"));
    assertEquals(List.of(), probe.placesOf("ok-2"));
    assertEquals(List.of(), probe.readyIds());
  }

  @Test
  void quietConsumerFinishesTheJobInHandAndGivesBackTheRestOfItsBatchUncounted() throws InterruptedException {
    GateHandler.close();
    for (int i = 0; i < 5; i++) {
      probe.seedReady(due("gated-" + i, "gate"));
    }

    startThread();
    await().atMost(Duration.ofSeconds(5)).until(GateHandler::isRunning);
    assertEquals(5, probe.inFlightIds(CONSUMER).size(), "the five were claimed in one batch");
    quiet.set(true);
    GateHandler.open();

    await().atMost(Duration.ofSeconds(5)).until(consumer()::isDone);
    assertEquals(4, probe.recordCount(), "the one in hand was acknowledged");
    assertEquals(List.of(), probe.inFlightIds(CONSUMER));
    assertEquals(List.of("gated-4", "gated-3", "gated-2", "gated-1"), probe.readyIds(), "in claim order");
    for (String id : probe.readyIds()) {
      assertEquals(1, probe.record(id).path("attempt").asInt(1), id + " was not counted as an attempt");
      assertFalse(probe.record(id).has("lost"), id + " was not counted as lost");
    }
  }

  @Test
  void jobsFinishedWhileTheirAcknowledgementsCannotLeaveAreAllInTheCrashRecordWhateverTheBatch() throws Exception {
    int batch = RunningFile.FINISHED_KEPT + 8;
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < batch; i++) {
      jobs.add(due("p-" + i, "count"));
    }
    broker.enqueueAll(jobs);
    settings = new Consumer.Settings(0.05, 30_000, batch);
    consumer().pass(); // claims the whole batch
    assertEquals(batch, probe.inFlightElements(CONSUMER).size());

    // Redis takes no write for a while (a stall, a slow replica's WAIT, a starved sender thread
    // look the same from here): no acknowledgement leaves, the jobs are still in the consumer's
    // list, and a crash now must find every one that ran named in the crash record as finished
    RedisFixture.get().redis().sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "PAUSE", "20000", "WRITE");
    try {
      startThread();
      await().atMost(Duration.ofSeconds(10)).until(() -> CountingHandler.runs().size() >= RunningFile.FINISHED_KEPT);
      Thread.sleep(300);
      List<String> ran = CountingHandler.runs().stream().map(r -> r.substring(0, r.indexOf('#'))).toList();
      List<String> noted = RunningFile.readSlots(jobsDir.resolve("worker-1.1.running")).get(0).finished().stream()
          .map(e -> e.substring(e.indexOf('|') + 1)).sorted().toList();
      assertEquals(RunningFile.FINISHED_KEPT, ran.size(), "it waits for its acknowledgements once the ring is full");
      assertEquals(ran.stream().sorted().toList(), noted, "every job that ran and is unacknowledged is in the ring");
    } finally {
      RedisFixture.get().redis().sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "UNPAUSE");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> probe.recordCount() == 0);
    assertEquals(batch, CountingHandler.runs().size(), "each job ran once");
  }

  @Test
  void aCrashWhileAJobRunsChargesThatJobAndNoneOfThePrefetchedOnes() {
    GateHandler.close();
    for (int i = 0; i < 4; i++) {
      probe.seedReady(due("g-" + i, "gate"));
    }
    startThread();
    await().atMost(Duration.ofSeconds(5)).until(GateHandler::isRunning);

    // the worker dies here; its supervisor takes back what its consumer held
    Requeued r = broker.consumerRegistry().requeueInFlight(CONSUMER, RequeueMode.GONE, "worker-1 killed", 3);

    assertEquals(new Requeued(3, 1, 0, false), r);
    assertEquals(2, probe.record("g-0").get("attempt").asInt());
    for (String id : List.of("g-1", "g-2", "g-3")) {
      assertEquals(1, probe.record(id).get("attempt").asInt(), id);
    }
    assertEquals(List.of("g-3", "g-2", "g-1", "g-0"), probe.readyIds());
  }

  @Test
  void afterAFailoverWhatItsListStillHoldsOnTheNewMasterGoesBackUnchargedAndRunsOnce() {
    // finished on the old master, whose acknowledgement the new one never got
    probe.seedInFlight(CONSUMER, due("stale", "count"));
    consumer(); // it started on the old master
    masterEpoch.incrementAndGet();

    passUntil(() -> probe.recordCount() == 0);

    assertEquals(List.of("stale#1"), CountingHandler.runs(), "given back uncharged and run again, once");
    assertEquals(List.of(), probe.inFlightIds(CONSUMER));
    assertEquals(List.of(), probe.deadIds());
  }

  @Test
  void batchClaimedBeforeAFailoverIsConfirmedJobByJobOnTheNewMaster() {
    broker.enqueueAll(List.of(due("a", "count"), due("b", "count"), due("c", "count")));
    consumer().pass(); // claims a, b, c on the old master
    // the new master never got that claim: the three are still in ready there
    RedisFixture.get().redis().del(broker.keys().inFlight(CONSUMER));
    RedisFixture.get().redis().rpush(broker.keys().ready(), "c", "b", "a");
    masterEpoch.incrementAndGet();

    consumer().pass(); // runs a, the job in hand
    consumer().pass(); // b is refused: the new master does not have it in this consumer's list
    assertEquals(List.of("a#1"), CountingHandler.runs(), "b and c did not run on a claim the new master lacks");

    passUntil(() -> probe.recordCount() == 0);
    List<String> runs = CountingHandler.runs();
    assertEquals(1, runs.stream().filter("b#1"::equals).count(), runs.toString());
    assertEquals(1, runs.stream().filter("c#1"::equals).count(), runs.toString());
    assertEquals(List.of(), probe.deadIds());
  }
}
